import { chmod, mkdtemp, readdir, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { beforeEach, describe, expect, it } from 'vitest'
import { withLock, type LockOptions } from '../../src/state/lock.ts'
import { readTokenFile, writeTokenFile, type TokenFile } from '../../src/state/cloud-token-file.ts'
import { POSIX, WINDOWS } from '../../src/state/platform.ts'

type CodedError = Error & { code: string; hint: string }

async function failure(promise: Promise<unknown>): Promise<CodedError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  expect(error).toBeInstanceOf(Error)
  return error as CodedError
}

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ts-token-'))
})

const sample: TokenFile = {
  version: 1,
  issuer: 'https://login.example.com',
  clientId: 'client',
  refreshToken: 'refresh-token-value-123',
  accessToken: 'access-token-value-456',
  accessTokenExpiresAt: 1_700_000_000_000,
  updatedAt: '2026-01-01T00:00:00.000Z',
}

describe('token file', () => {
  it('round-trips, with mode 0600 and no temp file left behind', async () => {
    const file = path.join(dir, 'token.json')
    await writeTokenFile(file, sample)
    expect((await stat(file)).mode & 0o777).toBe(0o600)
    expect(await readTokenFile(file)).toEqual(sample)
    expect(await readdir(dir)).toEqual(['token.json'])
  })

  it('replaces an existing file atomically and keeps it owner-only', async () => {
    const file = path.join(dir, 'token.json')
    await writeTokenFile(file, sample)
    await writeTokenFile(file, { ...sample, refreshToken: 'rotated-refresh-token' })
    expect((await readTokenFile(file))?.refreshToken).toBe('rotated-refresh-token')
    expect((await stat(file)).mode & 0o777).toBe(0o600)
  })

  it('returns undefined when there is no file', async () => {
    expect(await readTokenFile(path.join(dir, 'none.json'))).toBeUndefined()
  })

  it.each([0o644, 0o640, 0o604, 0o660])('refuses a file with mode %o', async (mode) => {
    const file = path.join(dir, 'token.json')
    await writeTokenFile(file, sample)
    await chmod(file, mode)
    await expect(readTokenFile(file)).rejects.toMatchObject({ code: 'TS_STATE', hint: expect.stringContaining('chmod 600') })
  })

  it('reads a file of any mode on Windows, where every file shows 0o666 and its folder decides who may read it', async () => {
    const file = path.join(dir, 'token.json')
    await writeTokenFile(file, sample)
    await chmod(file, 0o666)
    expect(await readTokenFile(file, WINDOWS)).toEqual(sample)
    await expect(readTokenFile(file, POSIX)).rejects.toMatchObject({ code: 'TS_STATE' })
  })

  it('asks for a new login when the file is not JSON, without quoting its contents', async () => {
    const file = path.join(dir, 'token.json')
    await writeFile(file, '{"refreshToken": "leaky-secret-value', { mode: 0o600 })
    const error = await failure(readTokenFile(file))
    expect(error).toMatchObject({ code: 'TS_AUTH_REQUIRED', hint: expect.stringContaining('timeline-sheets login') })
    expect(error.message).not.toContain('leaky')
    expect(error.cause).toBeUndefined()
  })

  it('names the invalid fields, not their values', async () => {
    const file = path.join(dir, 'token.json')
    await writeFile(file, JSON.stringify({ ...sample, refreshToken: '', accessTokenExpiresAt: 'soon' }), { mode: 0o600 })
    const error = await failure(readTokenFile(file))
    expect(error.code).toBe('TS_AUTH_REQUIRED')
    expect(error.message).toContain('refreshToken')
    expect(error.message).toContain('accessTokenExpiresAt')
    expect(error.message).not.toContain('access-token-value-456')
  })

  it('refuses to write contents that do not validate', async () => {
    await expect(writeTokenFile(path.join(dir, 'token.json'), { ...sample, refreshToken: '' })).rejects.toMatchObject({
      code: 'TS_INTERNAL',
      message: expect.stringContaining('refreshToken'),
    })
    expect(await readdir(dir)).toEqual([])
  })
})

// The cloud token refresh's lock, as src/timeline/auth/cloud.ts takes it.
const refreshLock = (waitMs = 30_000): LockOptions => ({ command: 'token refresh', waitMs, ttlMs: 60_000 })
const withFileLock = <T>(file: string, task: () => Promise<T>, options: { timeoutMs?: number } = {}) =>
  withLock(file, refreshLock(options.timeoutMs), task)

describe('refresh lock file', () => {
  it('runs tasks one after another', async () => {
    const lock = path.join(dir, 'token.json.lock')
    const events: string[] = []
    const task = (name: string) => async () => {
      events.push(`${name} start`)
      await new Promise((resolve) => setTimeout(resolve, 30))
      events.push(`${name} end`)
    }
    await Promise.all([withFileLock(lock, task('a')), withFileLock(lock, task('b'))])
    // Either may win the lock; what matters is that neither starts inside the other.
    expect([
      ['a start', 'a end', 'b start', 'b end'],
      ['b start', 'b end', 'a start', 'a end'],
    ]).toContainEqual(events)
    expect(await readdir(dir)).toEqual([])
  })

  it('takes over a lock left by a process that is gone', async () => {
    const lock = path.join(dir, 'token.json.lock')
    await writeFile(lock, JSON.stringify({ pid: 2 ** 22 + 12345, expiresAt: Date.now() + 60_000 }))
    expect(await withFileLock(lock, async () => 'ran', { timeoutMs: 500 })).toBe('ran')
  })

  it('takes over an expired lock', async () => {
    const lock = path.join(dir, 'token.json.lock')
    await writeFile(lock, JSON.stringify({ pid: process.pid, expiresAt: Date.now() - 1 }))
    expect(await withFileLock(lock, async () => 'ran', { timeoutMs: 500 })).toBe('ran')
  })

  it('gives up with TS_LOCKED naming the lock file while a live process holds it', async () => {
    const lock = path.join(dir, 'token.json.lock')
    await writeFile(lock, JSON.stringify({ pid: process.pid, expiresAt: Date.now() + 60_000 }))
    await expect(withFileLock(lock, async () => 'ran', { timeoutMs: 100 })).rejects.toMatchObject({
      code: 'TS_LOCKED',
      message: expect.stringContaining(lock),
    })
  })

  it('releases the lock when the task fails', async () => {
    const lock = path.join(dir, 'token.json.lock')
    await expect(withFileLock(lock, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom')
    expect(await readdir(dir)).toEqual([])
  })
})
