/**
 * The fake's command line (`npm run sheets-fake`) issues what each sign-in needs: a static token with the scopes
 * asked for, and a service-account key file whose JWT-bearer sign-in it accepts, so `sync --watch` can be tried
 * against it with either. A file it did not write is never replaced.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { importPKCS8, SignJWT } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FAKE_KEY_PROJECT } from './service-account-key.ts'

const CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), 'cli.ts')
const DRIVE_METADATA_READONLY = 'https://www.googleapis.com/auth/drive.metadata.readonly'
const SPREADSHEETS = 'https://www.googleapis.com/auth/spreadsheets'

interface Started {
  child: ChildProcess
  printed: Record<string, string>
}

/** Starts the command line and reads the lines it prints once it listens (`  name:   value`). */
function start(args: string[]): Promise<Started> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      if (!/spreadsheetId:/.test(out)) return
      const printed: Record<string, string> = {}
      for (const m of out.matchAll(/^ {2}([a-zA-Z' ]+):\s+(.+)$/gm)) printed[m[1]!.trim()] = m[2]!.trim()
      resolve({ child, printed })
    })
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()))
    child.on('error', reject)
    child.on('close', (code) => reject(new Error(`sheets-fake exited with ${code} before listening:\n${out}\n${err}`)))
  })
}

/** Runs the command line to its end (a refusal). */
function run(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stderr })
    })
  })
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve()
    child.once('close', () => resolve())
    child.kill('SIGTERM')
  })
}

let folder: string
beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), 'sheets-fake-cli-'))
})

describe('npm run sheets-fake', () => {
  let fake: Started
  let keyFile: string
  beforeAll(async () => {
    keyFile = path.join(folder, 'fake-sa.json')
    fake = await start(['--scope', 'spreadsheets', '--scope', DRIVE_METADATA_READONLY, '--key-file', keyFile])
  })
  afterAll(() => stop(fake.child))

  const filesGet = (token: string) =>
    fetch(`${fake.printed.rootUrl}drive/v3/files/${fake.printed.spreadsheetId}?fields=version`, {
      headers: { authorization: `Bearer ${token}` },
    })
  const sheetsGet = (token: string) =>
    fetch(`${fake.printed.rootUrl}v4/spreadsheets/${fake.printed.spreadsheetId}`, { headers: { authorization: `Bearer ${token}` } })

  it('gives the static token the scopes asked for, names as full URLs alike: Drive files.get and the Sheets API both answer', async () => {
    expect(fake.printed['its scopes']).toBe('spreadsheets, drive.metadata.readonly')
    expect((await filesGet(fake.printed['static token']!)).status).toBe(200)
    expect((await sheetsGet(fake.printed['static token']!)).status).toBe(200)
  })

  it('writes an owner-only service-account key file whose token_uri is the fake, and accepts its JWT-bearer sign-in', async () => {
    const key = JSON.parse(await readFile(keyFile, 'utf8')) as Record<string, string>
    expect(key).toMatchObject({ type: 'service_account', project_id: FAKE_KEY_PROJECT, token_uri: fake.printed['token endpoint'] })
    expect(fake.printed['key file']).toBe(keyFile)
    expect(fake.printed['its account']).toBe(key.client_email)
    expect((await stat(keyFile)).mode & 0o077).toBe(0)
    const iat = Math.floor(Date.now() / 1000)
    const assertion = await new SignJWT({ scope: `${SPREADSHEETS} ${DRIVE_METADATA_READONLY}` })
      .setProtectedHeader({ alg: 'RS256', kid: key.private_key_id! })
      .setIssuer(key.client_email!)
      .setAudience(key.token_uri!)
      .setIssuedAt(iat)
      .setExpirationTime(iat + 3600)
      .sign(await importPKCS8(key.private_key!, 'RS256'))
    const exchanged = await fetch(key.token_uri!, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }),
    })
    expect(exchanged.status).toBe(200)
    const { access_token: token } = (await exchanged.json()) as { access_token: string }
    expect((await filesGet(token)).status).toBe(200)
    expect((await sheetsGet(token)).status).toBe(200)
  })
})

describe('npm run sheets-fake refuses', () => {
  it('to write its key over a file it did not write, leaving that file as it was', async () => {
    const someoneElses = path.join(folder, 'real-key.json')
    await writeFile(someoneElses, '{"type":"service_account","project_id":"production"}')
    const refused = await run(['--key-file', someoneElses])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('is not a key file the Sheets fake wrote')
    expect(await readFile(someoneElses, 'utf8')).toBe('{"type":"service_account","project_id":"production"}')
  })

  it('a scope that is neither a name nor a URL', async () => {
    const refused = await run(['--scope', 'drive metadata'])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('--scope takes a name such as drive.metadata.readonly')
  })
})
