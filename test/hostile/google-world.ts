/**
 * The Google side of a hostile world: the Sheets fake behind the hostile proxy, signed in with a service-account
 * key whose token_uri is the proxy, and the reference Timeline server reached directly. The CLI runs as a
 * subprocess with small limits in the config's own `timeouts` section (see world.ts for why they do not depend
 * on the machine's speed).
 */
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import { exportPKCS8, exportSPKI, generateKeyPair } from 'jose'
import { createManager } from '../../counterparts/sheets/manager.ts'
import { startSheetsFake } from '../../counterparts/sheets/server.ts'
import { startReferenceServer } from '../../counterparts/timeline/server.ts'
import { runCli, tempFolder, writeConfig, type CliRun } from '../e2e/cli.ts'
import { startHostileProxy, startWitness, type HostileProxy, type Witness } from './proxy.ts'
import { KILL_AFTER_MS, NOW, TEST_TIMEOUTS } from './world.ts'

export interface GoogleWorld {
  proxy: HostileProxy
  witness: Witness
  run(args: string[]): Promise<CliRun>
}

/** Runs `test` in a fresh Google world; `timeouts` replaces the test limits (the config's section, as a user writes it). */
export async function inGoogleWorld(
  name: string,
  test: (world: GoogleWorld) => Promise<void>,
  timeouts: Record<string, number> = TEST_TIMEOUTS,
): Promise<void> {
  const server = await startReferenceServer({
    data: { users: 1, days: 3, startDate: '2026-11-06', timeZones: ['UTC'], otherTimelines: false },
  })
  const fake = await startSheetsFake({ quota: false })
  const proxy = await startHostileProxy(fake.rootUrl)
  const witness = await startWitness()
  try {
    const spreadsheetId = createManager(fake.store).createSpreadsheet({ title: 'Team time' })
    const pair = await generateKeyPair('RS256', { extractable: true })
    const clientEmail = 'bridge@project.iam.gserviceaccount.com'
    fake.store.auth.registerServiceAccount({ clientEmail, publicKey: await exportSPKI(pair.publicKey) })
    const folder = await tempFolder(`hostile-google-${name}`)
    const key = {
      type: 'service_account',
      client_email: clientEmail,
      private_key: await exportPKCS8(pair.privateKey),
      private_key_id: 'kid-1',
      token_uri: `${proxy.url}token`,
    }
    await writeFile(path.join(folder, 'sa.json'), JSON.stringify(key))
    const configFile = await writeConfig(folder, {
      timeline: { auth: { mode: 'password', baseUrl: server.url, username: server.credentials.transfer!.username } },
      google: { auth: { mode: 'service-account', keyFile: 'sa.json' }, rootUrl: proxy.url },
      stateDir: 'state',
      timeouts,
      targets: [{ name: 'team', spreadsheet: { kind: 'google', spreadsheetId }, timeZone: 'UTC', window: { days: 3, lookBackDays: 1 } }],
    })
    const env = { TIMELINE_PASSWORD: server.credentials.transfer!.password }
    await test({ proxy, witness, run: (args) => runCli(['--config', configFile, '--now', NOW, ...args], env, KILL_AFTER_MS) })
  } finally {
    await proxy.close()
    await witness.close()
    await fake.close()
    await server.close()
  }
}
