/**
 * End to end with Windows accounts: the CLI as a subprocess against the
 * reference server in NTLM mode on loopback (NTLMv2, passwords really
 * checked), `timeline.auth.mode: "ntlm"`, a local workbook.
 */
import { stat } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createNtlmAuthenticator } from '../../counterparts/timeline/ntlm.ts'
import { startReferenceServer, type ReferenceServer } from '../../counterparts/timeline/server.ts'
import { configSchema } from '../../src/config/schema.ts'
import { createWorkbookSpreadsheet } from '../../src/sheets/workbook/backend.ts'
import { onlyRun, runCli, tempFolder, writeConfig } from './cli.ts'
import { startProcess } from './cli-process.ts'

const timeZone = 'Europe/Berlin'
const DAY = 86_400_000
const startDate = new Date(Date.now() - 6 * DAY).toISOString().slice(0, 10)
const WRONG_PASSWORD = 'Not-The-Passw0rd'

let server: ReferenceServer

beforeAll(async () => {
  server = await startReferenceServer({
    data: { users: 3, days: 7, startDate, timeZones: [timeZone], directoryUsers: true, otherTimelines: false },
    authenticator: () => createNtlmAuthenticator(),
  })
})

afterAll(async () => {
  await server?.close()
})

async function ntlmConfig(prefix: string, username: string, baseUrl = server.url) {
  const folder = await tempFolder(prefix)
  const configFile = await writeConfig(folder, {
    timeline: { auth: { mode: 'ntlm', baseUrl, username, passwordEnv: 'TIMELINE_PASSWORD' } },
    stateDir: 'state',
    targets: [{ name: 'team', spreadsheet: { kind: 'workbook', path: 'team.xlsx' }, timeZone, window: { days: 14, lookBackDays: 7 } }],
  })
  return { folder, configFile, workbookFile: path.join(folder, 'team.xlsx') }
}

describe('export with a Windows account (NTLM), end to end', () => {
  it('the server really is in Windows mode: a plain request gets an NTLM challenge', async () => {
    const response = await fetch(server.apiUrl)
    expect(response.status).toBe(401)
    expect(response.headers.get('www-authenticate')).toBe('NTLM')
    await response.body?.cancel()
  })

  it('a wrong password exits 6 (refused: do not retry) with a message that says the sign-in was refused, and never prints the password', async () => {
    const transfer = server.credentials.transfer!
    expect(transfer.username).toBe('EXAMPLE\\transfer')
    const setup = await ntlmConfig('ntlm-wrong', transfer.username)
    const run = await runCli(['export', '--config', setup.configFile], { TIMELINE_PASSWORD: WRONG_PASSWORD })
    expect(run.code).toBe(6)
    expect(run.stderr).toContain(`Windows sign-in as ${transfer.username} at ${new URL(server.url).origin} was refused`)
    expect(run.stderr).toMatch(/hint: .*password/)
    for (const secret of [WRONG_PASSWORD, transfer.password]) {
      expect(run.stdout).not.toContain(secret)
      expect(run.stderr).not.toContain(secret)
    }
  })

  it("the right password exports every team member's activities", async () => {
    const transfer = server.credentials.transfer!
    const setup = await ntlmConfig('ntlm', transfer.username)
    const run = await runCli(['export', '--config', setup.configFile, '--json'], { TIMELINE_PASSWORD: transfer.password })
    expect(run.code, run.stderr).toBe(0)
    const summary = onlyRun(run)
    expect(summary.result).toBe('success')
    expect(run.stdout).not.toContain(transfer.password)
    expect(run.stderr).not.toContain(transfer.password)

    const snapshot = await createWorkbookSpreadsheet({ path: setup.workbookFile }).read(['Activities'])
    const tab = snapshot.tabs['Activities']!
    const keys = tab.rows.map((row) => row[tab.header.indexOf('Key')]).filter((key): key is string => typeof key === 'string')
    expect(keys.length).toBeGreaterThan(0)
    expect(summary.counts.created).toBe(keys.length)
    const timelines = new Set(keys.map((key) => key.split('/')[0]))
    expect([...timelines].sort()).toEqual(server.credentials.users.map((user) => user.tagsTimelineKey).sort())
    // The User column names the owners as the directory does.
    const users = new Set(tab.rows.map((row) => row[tab.header.indexOf('User')]))
    expect([...users].sort()).toEqual(server.credentials.users.map((user) => user.username).sort())

    // A second run signs in again on its own connection and is incremental.
    const again = await runCli(['export', '--config', setup.configFile, '--json'], { TIMELINE_PASSWORD: transfer.password })
    expect(again.code, again.stderr).toBe(0)
    expect(onlyRun(again).counts).toMatchObject({ created: 0, updated: 0, deleted: 0 })
  })

  it("a user name without the domain takes it from the server's challenge", async () => {
    const transfer = server.credentials.transfer!
    const setup = await ntlmConfig('ntlm-bare', 'transfer')
    const run = await runCli(['export', '--config', setup.configFile, '--json'], { TIMELINE_PASSWORD: transfer.password })
    expect(run.code, run.stderr).toBe(0)
    expect(onlyRun(run).counts.created).toBeGreaterThan(0)
    await stat(setup.workbookFile)
  })
})

describe('export with a Windows account against a server that offers only Negotiate, end to end', () => {
  let negotiate: ReferenceServer
  beforeAll(async () => {
    negotiate = await startReferenceServer({
      data: { users: 2, days: 3, startDate, timeZones: [timeZone], directoryUsers: true, otherTimelines: false },
      authenticator: () => createNtlmAuthenticator({ schemes: ['Negotiate'] }),
    })
  })
  afterAll(async () => {
    await negotiate?.close()
  })

  it('the server offers only Negotiate', async () => {
    const response = await fetch(negotiate.apiUrl)
    expect(response.status).toBe(401)
    expect(response.headers.get('www-authenticate')).toBe('Negotiate')
    await response.body?.cancel()
  })

  it('the right password exports, the NTLM handshake carried under Negotiate', async () => {
    const transfer = negotiate.credentials.transfer!
    const setup = await ntlmConfig('negotiate', transfer.username, negotiate.url)
    const run = await runCli(['export', '--config', setup.configFile, '--json'], { TIMELINE_PASSWORD: transfer.password })
    expect(run.code, run.stderr).toBe(0)
    expect(onlyRun(run).counts.created).toBeGreaterThan(0)
  })

  it('a wrong password exits 6 with the same refusal as under NTLM', async () => {
    const transfer = negotiate.credentials.transfer!
    const setup = await ntlmConfig('negotiate-wrong', transfer.username, negotiate.url)
    const run = await runCli(['export', '--config', setup.configFile], { TIMELINE_PASSWORD: WRONG_PASSWORD })
    expect(run.code).toBe(6)
    expect(run.stderr).toContain(`Windows sign-in as ${transfer.username} at ${new URL(negotiate.url).origin} was refused`)
    expect(run.stderr).not.toContain(WRONG_PASSWORD)
  })
})

describe('npm run reference-server -- --ntlm', () => {
  const script = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../counterparts/timeline/cli.ts')

  it('--ntlm-schemes Negotiate offers only Negotiate', async () => {
    const reference = startProcess(script, ['--ntlm', '--ntlm-schemes', 'Negotiate', '--port', '0', '--users', '1', '--days', '1'])
    try {
      await reference.waitFor('stdout', /Ctrl-C stops it\./)
      const url = /http:\/\/127\.0\.0\.1:\d+\//.exec(reference.stdout())![0]
      const response = await fetch(`${url}api`)
      await response.body?.cancel()
      expect(response.headers.get('www-authenticate')).toBe('Negotiate')
    } finally {
      await reference.stop()
    }
  })

  it('refuses --ntlm-schemes that names a scheme it cannot offer', async () => {
    const run = await startProcess(script, ['--ntlm', '--ntlm-schemes', 'Negotiate,Kerberos', '--port', '0']).exited
    expect(run.code).not.toBe(0)
    expect(run.stderr).toContain('--ntlm-schemes must list NTLM and/or Negotiate')
  })

  it('prints directory users and a config that export accepts as printed', async () => {
    const reference = startProcess(script, ['--ntlm', '--port', '0', '--users', '2', '--days', '3', '--start-date', startDate])
    try {
      await reference.waitFor('stdout', /Ctrl-C stops it\./)
      const out = reference.stdout()
      expect(out).toContain('EXAMPLE\\transfer  /  transfer-password  /  contentEditor')
      expect(out).toContain('EXAMPLE\\alice  /  alice-password  /  user')
      const snippet = /^\{\n[\s\S]*?\n\}$/m.exec(out)?.[0]
      expect(snippet, out).toBeDefined()
      const printed = configSchema.parse(JSON.parse(snippet!))
      expect(printed.timeline.auth).toMatchObject({ mode: 'ntlm', username: 'EXAMPLE\\transfer', passwordEnv: 'TIMELINE_PASSWORD' })
      const password = /export TIMELINE_PASSWORD=(\S+)/.exec(out)?.[1]
      expect(password).toBe('transfer-password')

      const folder = await tempFolder('ntlm-cli')
      const configFile = await writeConfig(folder, JSON.parse(snippet!))
      const run = await runCli(['export', '--config', configFile, '--json'], { TIMELINE_PASSWORD: password! })
      expect(run.code, run.stderr).toBe(0)
      expect(onlyRun(run).counts.created).toBeGreaterThan(0)
    } finally {
      await reference.stop()
    }
  })
})
