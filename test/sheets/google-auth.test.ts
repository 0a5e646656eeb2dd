import { mkdtemp, readFile, rm, stat, writeFile, chmod } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { exportPKCS8, exportSPKI, generateKeyPair, jwtVerify, decodeProtectedHeader } from 'jose'
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { HttpError, isTimelineSheetsError } from '../../src/errors.ts'
import {
  buildJwtAssertion,
  loadServiceAccountKey,
  parseServiceAccountKey,
  requestServiceAccountToken,
  SHEETS_SCOPE,
  signInWithInstalledApp,
  signInWithServiceAccount,
  signInWithStaticToken,
  type ServiceAccountKey,
} from '../../src/sheets/google/auth.ts'
import { signInWithApplicationDefault } from '../../src/sheets/google/adc.ts'
import { readStoredToken, writeOwnerOnlyFile } from '../../src/state/google-token-file.ts'
import { POSIX, WINDOWS } from '../../src/state/platform.ts'

let key: ServiceAccountKey
let publicPem: string
let dir: string

beforeAll(async () => {
  const pair = await generateKeyPair('RS256', { extractable: true })
  publicPem = await exportSPKI(pair.publicKey)
  key = {
    type: 'service_account',
    client_email: 'bridge@proj.iam.gserviceaccount.com',
    private_key: await exportPKCS8(pair.privateKey),
    private_key_id: 'kid-1',
    token_uri: 'http://token.test/token',
  }
})

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ts-google-auth-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error('expected a rejection')
}

describe('service-account key file', () => {
  it('names the file and the field that is wrong', async () => {
    const file = path.join(dir, 'key.json')
    await writeFile(file, JSON.stringify({ ...key, client_email: undefined }))
    const error = await caught(loadServiceAccountKey(file))
    expect(isTimelineSheetsError(error) && error.code).toBe('TS_CONFIG_INVALID')
    expect((error as Error).message).toContain(file)
    expect((error as Error).message).toContain('client_email')
  })

  it('refuses other credential types, non-JSON files and missing files', async () => {
    expect(() => parseServiceAccountKey({ ...key, type: 'authorized_user' }, 'k.json')).toThrow(/field "type"/)
    expect(() => parseServiceAccountKey({ ...key, private_key: 'nope' }, 'k.json')).toThrow(/private_key/)
    const file = path.join(dir, 'bad.json')
    await writeFile(file, 'not json')
    expect(((await caught(loadServiceAccountKey(file))) as Error).message).toContain('not JSON')
    const missing = await caught(loadServiceAccountKey(path.join(dir, 'missing.json')))
    expect(isTimelineSheetsError(missing) && missing.code).toBe('TS_CONFIG_NOT_FOUND')
  })

  it("signs an RS256 assertion for the key's token_uri, valid one hour, with the spreadsheets scope only", async () => {
    const assertion = await buildJwtAssertion(key, 1_700_000_000)
    const { payload } = await jwtVerify(assertion, await import('jose').then((j) => j.importSPKI(publicPem, 'RS256')), {
      audience: key.token_uri,
      issuer: key.client_email,
      currentDate: new Date(1_700_000_100_000),
    })
    expect(payload).toMatchObject({ scope: SHEETS_SCOPE, iat: 1_700_000_000, exp: 1_700_003_600 })
    expect(decodeProtectedHeader(assertion)).toMatchObject({ alg: 'RS256', kid: 'kid-1' })
  })

  it('refuses a private key that is not PKCS#8 RSA', async () => {
    const broken = { ...key, private_key: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n' }
    const error = await caught(buildJwtAssertion(broken, 0, 'k.json'))
    expect((error as Error).message).toContain('private_key')
  })
})

describe('service-account token request', () => {
  it('posts the JWT-bearer grant to token_uri and computes the expiry', async () => {
    const seen: { url: string; body: string }[] = []
    const token = await requestServiceAccountToken(key, {
      now: () => 1_000_000,
      fetch: async (url, init) => {
        seen.push({ url, body: String(init.body) })
        return Response.json({ access_token: 'at-1', expires_in: 3599, token_type: 'Bearer' })
      },
    })
    expect(token).toEqual({ access_token: 'at-1', expiry_date: 1_000_000 + 3_599_000 })
    expect(seen[0]!.url).toBe('http://token.test/token')
    const form = new URLSearchParams(seen[0]!.body)
    expect(form.get('grant_type')).toBe('urn:ietf:params:oauth:grant-type:jwt-bearer')
    expect(form.get('assertion')?.split('.')).toHaveLength(3)
  })

  it('turns invalid_grant into TS_AUTH_FAILED naming the account and the key file', async () => {
    const error = await caught(
      requestServiceAccountToken(key, {
        source: '/etc/ts/key.json',
        fetch: async () => Response.json({ error: 'invalid_grant', error_description: 'Invalid JWT Signature.' }, { status: 400 }),
      }),
    )
    expect(isTimelineSheetsError(error) && error.code).toBe('TS_AUTH_FAILED')
    expect((error as Error).message).toContain('bridge@proj.iam.gserviceaccount.com')
    expect((error as Error).message).toContain('/etc/ts/key.json')
    expect((error as Error).message).toContain('invalid_grant: Invalid JWT Signature.')
    expect((error as { hint: string }).hint).toContain('clock')
  })

  it('makes a 5xx retryable (HttpError with the status), a missing access_token a shape error, and a network failure TS_NETWORK', async () => {
    const busy = await caught(requestServiceAccountToken(key, { fetch: async () => Response.json({ error: 'backend' }, { status: 503 }) }))
    expect(busy).toBeInstanceOf(HttpError)
    expect((busy as HttpError).status).toBe(503)
    const shape = await caught(requestServiceAccountToken(key, { fetch: async () => Response.json({ token_type: 'Bearer' }) }))
    expect(isTimelineSheetsError(shape) && shape.code).toBe('TS_RESPONSE_INVALID')
    const down = await caught(
      requestServiceAccountToken(key, {
        fetch: async () => {
          throw new TypeError('fetch failed')
        },
      }),
    )
    expect(isTimelineSheetsError(down) && down.code).toBe('TS_NETWORK')
  })

  it('feeds OAuth2Client.refreshHandler, so googleapis gets a token when it needs one', async () => {
    const signIn = signInWithServiceAccount(key, { fetch: async () => Response.json({ access_token: 'at-2', expires_in: 3600 }) })
    expect(signIn.principal).toBe(key.client_email)
    const { token } = await signIn.client.getAccessToken()
    expect(token).toBe('at-2')
    expect(signIn.secrets()).toContain('at-2')
    expect(signIn.secrets()).toContain(key.private_key)
  })
})

describe('static token', () => {
  it('hands the token to googleapis as is', async () => {
    const signIn = signInWithStaticToken('static-1')
    expect((await signIn.client.getAccessToken()).token).toBe('static-1')
    expect(signIn.secrets()).toEqual(['static-1'])
  })
})

describe('token files', () => {
  it('are written atomically, readable by the owner only', async () => {
    const file = path.join(dir, 'nested', 'google-token.json')
    await writeOwnerOnlyFile(file, '{"type":"authorized_user","client_id":"c","refresh_token":"r"}')
    expect((await stat(file)).mode & 0o777).toBe(0o600)
    expect(await readStoredToken(file)).toEqual({ type: 'authorized_user', client_id: 'c', refresh_token: 'r' })
  })

  it.each([0o644, 0o640, 0o604, 0o660, 0o602])(
    'refuses a token file of mode %o, as the cloud token file is refused, and leaves its mode for the owner to judge',
    async (mode) => {
      const file = path.join(dir, 'loose.json')
      await writeFile(file, '{"type":"authorized_user","client_id":"c","refresh_token":"r"}')
      await chmod(file, mode)
      const error = await caught(readStoredToken(file, POSIX))
      expect(error).toMatchObject({ code: 'TS_STATE', hint: expect.stringContaining(`chmod 600 ${file}`) })
      expect((error as Error).message).toContain(`mode ${mode.toString(8)}`)
      expect((error as Error).message).not.toContain('"r"')
      expect((await stat(file)).mode & 0o777).toBe(mode)
    },
  )

  it('reads a token file of any mode on Windows, where every file shows 0o666 and its folder decides who may read it', async () => {
    const file = path.join(dir, 'windows.json')
    await writeFile(file, '{"type":"authorized_user","client_id":"c","refresh_token":"r"}')
    await chmod(file, 0o666)
    expect(await readStoredToken(file, WINDOWS)).toEqual({ type: 'authorized_user', client_id: 'c', refresh_token: 'r' })
  })

  it('refuses a file that is not a token', async () => {
    const file = path.join(dir, 'loose.json')
    await writeFile(file, '{"nope":1}', { mode: 0o600 })
    const error = await caught(readStoredToken(file))
    expect(isTimelineSheetsError(error) && error.code).toBe('TS_STATE')
    expect(await readStoredToken(path.join(dir, 'absent.json'))).toBeUndefined()
  })

  it('installed app: uses a stored refresh token without a browser, and asks for login when none is stored', async () => {
    const file = path.join(dir, 'token.json')
    const options = {
      clientId: 'cid',
      clientSecret: 'csecret',
      tokenFile: file,
      interactive: false,
      openBrowser: async () => {
        throw new Error('no browser')
      },
    }
    const required = await caught(signInWithInstalledApp(options))
    expect(isTimelineSheetsError(required) && required.code).toBe('TS_AUTH_REQUIRED')
    await writeOwnerOnlyFile(file, JSON.stringify({ type: 'authorized_user', client_id: 'cid', refresh_token: 'rt-1' }))
    const signIn = await signInWithInstalledApp(options)
    expect(signIn.mode).toBe('installed-app')
    expect(signIn.client.credentials.refresh_token).toBe('rt-1')
    expect(signIn.secrets()).toEqual(expect.arrayContaining(['rt-1', 'csecret']))
  })
})

describe('application default credentials', () => {
  // With no file found the sign-in asks for a metadata server: none here, and gcp-metadata never pings Google's address.
  beforeEach(() => {
    vi.stubEnv('GCE_METADATA_HOST', '127.0.0.1:9')
    vi.stubEnv('METADATA_SERVER_DETECTION', 'none')
  })
  afterEach(() => {
    vi.unstubAllEnvs()
  })

  it('uses GOOGLE_APPLICATION_CREDENTIALS pointing at a service-account key', async () => {
    const file = path.join(dir, 'sa.json')
    await writeFile(file, JSON.stringify(key))
    const signIn = await signInWithApplicationDefault({ env: { GOOGLE_APPLICATION_CREDENTIALS: file }, home: dir })
    expect(signIn).toMatchObject({ mode: 'service-account', principal: key.client_email })
  })

  it("uses an authorized_user file from gcloud's well-known place", async () => {
    const file = path.join(dir, '.config', 'gcloud', 'application_default_credentials.json')
    await writeOwnerOnlyFile(file, JSON.stringify({ type: 'authorized_user', client_id: 'c', client_secret: 's', refresh_token: 'r' }))
    const signIn = await signInWithApplicationDefault({ env: {}, home: dir })
    expect(signIn.mode).toBe('authorized-user')
    expect(signIn.client.credentials.refresh_token).toBe('r')
  })

  it('says which options exist when there are no credentials, and refuses unusable files', async () => {
    const none = await caught(signInWithApplicationDefault({ env: {}, home: dir }))
    expect(isTimelineSheetsError(none) && none.code).toBe('TS_AUTH_REQUIRED')
    expect((none as { hint: string }).hint).toMatch(/service-account key.*GOOGLE_APPLICATION_CREDENTIALS.*login/s)
    const named = await caught(
      signInWithApplicationDefault({ env: { GOOGLE_APPLICATION_CREDENTIALS: path.join(dir, 'x.json') }, home: dir }),
    )
    expect((named as Error).message).toContain('x.json')
    const external = path.join(dir, 'ext.json')
    await writeFile(external, JSON.stringify({ type: 'external_account' }))
    const wrongType = await caught(signInWithApplicationDefault({ env: { GOOGLE_APPLICATION_CREDENTIALS: external }, home: dir }))
    expect(isTimelineSheetsError(wrongType) && wrongType.code).toBe('TS_CONFIG_INVALID')
    await writeFile(external, JSON.stringify({ type: 'authorized_user', client_id: 'c' }))
    const partial = await caught(signInWithApplicationDefault({ env: { GOOGLE_APPLICATION_CREDENTIALS: external }, home: dir }))
    expect((partial as Error).message).toContain('client_secret')
    expect(await readFile(external, 'utf8')).toContain('authorized_user')
  })
})
