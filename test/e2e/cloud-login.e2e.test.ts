/**
 * End to end in the cloud: the CLI as a subprocess against the whole cloud on
 * loopback (OpenID Provider, cloud API with profile, reference server under
 * /acct-1/). `login --no-browser` prints the sign-in address on stderr; a
 * scripted browser follows it and lands on the CLI's own callback listener.
 * Later exports sign in from the token file and refresh by themselves.
 */
import { readFile, stat, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCloudReferenceServer, type CloudReferenceServer } from '../../counterparts/timeline/cloud-server.ts'
import { configSchema } from '../../src/config/schema.ts'
import { createWorkbookSpreadsheet } from '../../src/sheets/workbook/backend.ts'
import { scriptedBrowser, type ScriptedBrowser } from '../support/browser.ts'
import { onlyRun, runCli, tempFolder, writeConfig, type CliRun } from './cli.ts'
import { freePort, startCli, startProcess } from './cli-process.ts'

const timeZone = 'Europe/Berlin'
const DAY = 86_400_000
// Data from six days ago up to today, so the real clock finds it in the window.
const startDate = new Date(Date.now() - 6 * DAY).toISOString().slice(0, 10)
const AUTHORIZE = /Open this address in a browser to sign in:\s+(\S+)/

let cloud: CloudReferenceServer
let env: Record<string, string>

beforeAll(async () => {
  cloud = await startCloudReferenceServer({
    data: { users: 3, days: 7, startDate, timeZones: [timeZone], otherTimelines: false },
  })
  env = { TIMELINE_CLIENT_SECRET: cloud.clients.post.clientSecret }
})

afterAll(async () => {
  await cloud?.close()
})

/** A folder with a cloud config whose callback listens on a free loopback port. */
async function cloudConfig(prefix: string) {
  const folder = await tempFolder(prefix)
  const callbackUrl = `http://127.0.0.1:${await freePort()}`
  const configFile = await writeConfig(folder, {
    timeline: {
      auth: {
        mode: 'cloud',
        authority: cloud.issuer,
        apiUrl: cloud.apiUrl,
        clientId: cloud.clients.post.clientId,
        clientSecretEnv: 'TIMELINE_CLIENT_SECRET',
        callbackUrl,
        tokenFile: 'cloud-token.json',
      },
    },
    stateDir: 'state',
    targets: [{ name: 'team', spreadsheet: { kind: 'workbook', path: 'team.xlsx' }, timeZone, window: { days: 14, lookBackDays: 7 } }],
  })
  return { folder, configFile, callbackUrl, tokenFile: path.join(folder, 'cloud-token.json'), workbookFile: path.join(folder, 'team.xlsx') }
}

/** Runs `login --no-browser`, hands the address it prints to the browser, and waits for the CLI to exit. */
async function login(configFile: string, browser: ScriptedBrowser, ...extra: string[]): Promise<{ run: CliRun; address: string }> {
  const cli = startCli(['login', '--config', configFile, '--no-browser', ...extra], env)
  try {
    const address = (await cli.waitFor('stderr', AUTHORIZE))[1]!
    await browser.open(address)
    return { run: await cli.exited, address }
  } finally {
    await cli.stop()
  }
}

interface StoredToken {
  refreshToken: string
  accessToken: string
  accessTokenExpiresAt: number
  subject?: string
}

async function storedToken(file: string): Promise<StoredToken> {
  return JSON.parse(await readFile(file, 'utf8')) as StoredToken
}

async function modeOf(file: string): Promise<number> {
  return (await stat(file)).mode & 0o777
}

const refreshGrants = () => cloud.tokenRequests.filter((request) => request.body.grant_type === 'refresh_token').length

function expectNoSecrets(run: CliRun, secrets: string[]): void {
  for (const secret of secrets) {
    expect(run.stdout).not.toContain(secret)
    expect(run.stderr).not.toContain(secret)
  }
}

describe('cloud sign-in and export through the CLI, end to end', () => {
  let setup: Awaited<ReturnType<typeof cloudConfig>>
  const outputs: CliRun[] = []

  beforeAll(async () => {
    setup = await cloudConfig('cloud')
  })

  it('login --no-browser prints the address, the browser comes back to the CLI, and the token file is owner-only', async () => {
    const browser = scriptedBrowser()
    const { run, address } = await login(setup.configFile, browser)
    outputs.push(run)
    expect(run.code, run.stderr).toBe(0)
    expect(new URL(address).origin).toBe(cloud.issuer)
    // Exactly as configured and registered: no slash added to the bare origin.
    expect(new URL(address).searchParams.get('redirect_uri')).toBe(setup.callbackUrl)
    expect(cloud.tokenRequests.at(-1)!.body.redirect_uri).toBe(setup.callbackUrl)
    expect(new URL(address).searchParams.get('code_challenge_method')).toBe('S256')
    // The redirect landed on the CLI's own listener, which answered the browser.
    expect(browser.callback).toMatchObject({ status: 200 })
    expect(browser.callback!.url.startsWith(`${setup.callbackUrl}/?`)).toBe(true)
    expect(run.stdout).toContain(`Signed in as ${cloud.account}`)
    expect(run.stdout).toContain(setup.tokenFile)

    expect(await modeOf(setup.tokenFile)).toBe(0o600)
    const stored = await storedToken(setup.tokenFile)
    expect(stored.subject).toBe(cloud.account)
    expect(stored.refreshToken).toBeTruthy()
    expect(stored.accessToken).toBeTruthy()
    expectNoSecrets(run, [stored.accessToken, stored.refreshToken, cloud.clients.post.clientSecret])
    expect(cloud.tokenRequests.at(-1)?.body.grant_type).toBe('authorization_code')
  })

  it("export signs in from the token file, with no browser, and fills the sheet with everyone's activities", async () => {
    const grantsBefore = cloud.tokenRequests.length
    const run = await runCli(['export', '--config', setup.configFile, '--json'], env)
    outputs.push(run)
    expect(run.code, run.stderr).toBe(0)
    const summary = onlyRun(run)
    expect(summary.result).toBe('success')
    // The access token from the login was still good: no token request at all.
    expect(cloud.tokenRequests.length).toBe(grantsBefore)

    const snapshot = await createWorkbookSpreadsheet({ path: setup.workbookFile }).read(['Activities'])
    const tab = snapshot.tabs['Activities']!
    const keys = tab.rows.map((row) => row[tab.header.indexOf('Key')]).filter((key): key is string => typeof key === 'string')
    expect(keys.length).toBeGreaterThan(0)
    expect(summary.counts.created).toBe(keys.length)
    // The account is a content editor: every team member's Tags timeline is exported.
    const timelines = new Set(keys.map((key) => key.split('/')[0]))
    expect([...timelines].sort()).toEqual(cloud.seed!.users.map((user) => user.tagsTimelineKey).sort())
    const stored = await storedToken(setup.tokenFile)
    expectNoSecrets(run, [stored.accessToken, stored.refreshToken, cloud.clients.post.clientSecret])
  })

  it('an expired access token is refreshed by the export itself, and the rotated refresh token is saved owner-only', async () => {
    const before = await storedToken(setup.tokenFile)
    await writeFile(setup.tokenFile, JSON.stringify({ ...before, accessTokenExpiresAt: Date.now() - 60_000 }, null, 2))
    expect(await modeOf(setup.tokenFile)).toBe(0o600)
    const refreshesBefore = refreshGrants()

    const run = await runCli(['export', '--config', setup.configFile, '--json'], env)
    outputs.push(run)
    expect(run.code, run.stderr).toBe(0)
    expect(onlyRun(run).result).toBe('success')
    expect(refreshGrants()).toBe(refreshesBefore + 1)
    expect(cloud.tokenRequests.at(-1)).toMatchObject({
      status: 200,
      body: { grant_type: 'refresh_token', refresh_token: before.refreshToken },
    })

    const after = await storedToken(setup.tokenFile)
    expect(after.refreshToken).not.toBe(before.refreshToken)
    expect(after.accessToken).not.toBe(before.accessToken)
    expect(after.accessTokenExpiresAt).toBeGreaterThan(Date.now())
    expect(await modeOf(setup.tokenFile)).toBe(0o600)
    expectNoSecrets(run, [before.accessToken, before.refreshToken, after.accessToken, after.refreshToken])
    expect(cloud.grantErrors).toEqual([])
  })

  it('the saved refresh token is the one that works next time', async () => {
    const before = await storedToken(setup.tokenFile)
    await writeFile(setup.tokenFile, JSON.stringify({ ...before, accessTokenExpiresAt: Date.now() - 60_000 }, null, 2))
    const run = await runCli(['export', '--config', setup.configFile, '--json'], env)
    outputs.push(run)
    expect(run.code, run.stderr).toBe(0)
    expect(cloud.tokenRequests.at(-1)).toMatchObject({
      status: 200,
      body: { grant_type: 'refresh_token', refresh_token: before.refreshToken },
    })
    // Presenting a used refresh token again would have revoked the grant.
    expect(cloud.grantErrors).toEqual([])
  })

  it('no token of any run reached the output', async () => {
    const tokens = cloud.tokenRequests.flatMap((request) => [request.body.refresh_token, request.body.code]).filter((t): t is string => !!t)
    const stored = await storedToken(setup.tokenFile)
    expect(outputs.length).toBe(4)
    for (const run of outputs) expectNoSecrets(run, [...tokens, stored.accessToken, stored.refreshToken, cloud.clients.post.clientSecret])
  })
})

describe('login --json', () => {
  it('prints { login: { service, account, tokenFile }, exitCode: 0 } and nothing else on stdout', async () => {
    const setup = await cloudConfig('cloud-json')
    const { run } = await login(setup.configFile, scriptedBrowser(), '--json')
    expect(run.code, run.stderr).toBe(0)
    expect(JSON.parse(run.stdout)).toEqual({
      login: { service: 'timeline-cloud', account: cloud.account, tokenFile: setup.tokenFile },
      exitCode: 0,
    })
    expect(run.stderr).toContain('Open this address in a browser to sign in')
    const stored = await storedToken(setup.tokenFile)
    expectNoSecrets(run, [stored.accessToken, stored.refreshToken, cloud.clients.post.clientSecret])
  })
})

describe('cloud sign-in failures through the CLI', () => {
  it('a callback that carries a state this login did not send is refused: exit 1, a clear message, no token file', async () => {
    const setup = await cloudConfig('cloud-state')
    const browser = scriptedBrowser({
      tamperCallback: (callback) => {
        callback.searchParams.set('state', 'forged-state')
        return callback
      },
    })
    const codeGrants = () => cloud.tokenRequests.filter((request) => request.body.grant_type === 'authorization_code').length
    const grantsBefore = codeGrants()
    const { run } = await login(setup.configFile, browser)
    expect(run.code).toBe(6)
    expect(run.stderr).toMatch(/state that this login did not send; refused/)
    expect(run.stderr).toContain('timeline-sheets login')
    expect(browser.callback).toMatchObject({ status: 400 })
    expect(browser.callback!.body).toContain('Login error')
    // The code was never exchanged.
    expect(codeGrants()).toBe(grantsBefore)
    await expect(stat(setup.tokenFile)).rejects.toMatchObject({ code: 'ENOENT' })
  })

  it('export without a token file exits 6 (a person must sign in) and says to run timeline-sheets login', async () => {
    const setup = await cloudConfig('cloud-none')
    const run = await runCli(['export', '--config', setup.configFile], env)
    expect(run.code).toBe(6)
    expect(run.stderr).toContain(setup.tokenFile)
    expect(run.stderr).toMatch(/hint: .*timeline-sheets login/)
    await expect(stat(setup.tokenFile)).rejects.toMatchObject({ code: 'ENOENT' })
  })
})

describe('npm run reference-server -- --cloud', () => {
  it('prints a config that login and export accept as printed, but for the callback port', async () => {
    const script = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../counterparts/timeline/cli.ts')
    const server = startProcess(script, ['--cloud', '--port', '0', '--users', '2', '--days', '3', '--start-date', startDate])
    try {
      await server.waitFor('stdout', /Ctrl-C stops it\./)
      const out = server.stdout()
      const snippet = /^\{\n[\s\S]*?\n\}$/m.exec(out)?.[0]
      expect(snippet, out).toBeDefined()
      const printed = configSchema.parse(JSON.parse(snippet!))
      expect(printed.timeline.auth.mode).toBe('cloud')
      const secret = /export TIMELINE_CLIENT_SECRET=(\S+)/.exec(out)?.[1]
      expect(secret).toBeDefined()
      expect(out).toMatch(/account data \(serverUrl\)\s+http:\/\/127\.0\.0\.1:\d+\/acct-1\//)
      expect(out).toContain('transfer@example.com')

      // 4040 may be taken on a test machine: only the callback port changes.
      const folder = await tempFolder('cloud-cli')
      const callbackUrl = `http://127.0.0.1:${await freePort()}`
      const config = JSON.parse(snippet!)
      config.timeline.auth.callbackUrl = callbackUrl
      const configFile = await writeConfig(folder, config)
      const cli = startCli(['login', '--config', configFile, '--no-browser'], { TIMELINE_CLIENT_SECRET: secret! })
      try {
        await scriptedBrowser().open((await cli.waitFor('stderr', AUTHORIZE))[1]!)
        const loggedIn = await cli.exited
        expect(loggedIn.code, loggedIn.stderr).toBe(0)
      } finally {
        await cli.stop()
      }
      const exported = await runCli(['export', '--config', configFile, '--json'], { TIMELINE_CLIENT_SECRET: secret! })
      expect(exported.code, exported.stderr).toBe(0)
      expect(onlyRun(exported).counts.created).toBeGreaterThan(0)
    } finally {
      await server.stop()
    }
  })
})
