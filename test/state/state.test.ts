import { mkdir, mkdtemp, readdir, readFile, stat, utimes, writeFile } from 'node:fs/promises'
import { hostname, tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { readFileAtomic, writeFileAtomic } from '../../src/state/atomic-file.ts'
import { acquireLock, UNREADABLE_GRACE_MS } from '../../src/state/lock.ts'
import { applyBaseChanges, emptyState, loadState, saveState, stateLocation } from '../../src/state/target-state.ts'

async function tempDir() {
  return mkdtemp(path.join(tmpdir(), 'ts-state-'))
}

describe('atomic files', () => {
  it('keeps the previous version and writes with the given mode', async () => {
    const file = path.join(await tempDir(), 'sub', 'f.json')
    await writeFileAtomic(file, 'one', { mode: 0o600 })
    await writeFileAtomic(file, 'two', { mode: 0o600 })
    expect(await readFile(file, 'utf8')).toBe('two')
    expect(await readFile(`${file}.old`, 'utf8')).toBe('one')
    expect((await stat(file)).mode & 0o777).toBe(0o600)
  })

  it('recovers from a crash between the two renames', async () => {
    const file = path.join(await tempDir(), 'f.json')
    await writeFile(`${file}.new`, 'fresh')
    await writeFile(`${file}.old`, 'previous')
    expect(await readFileAtomic(file)).toEqual({ text: 'fresh', recoveredFrom: `${file}.new` })
  })
})

describe('the one atomic writer', () => {
  it('gives each writer a temp file of its own: writers of one file at once leave one whole version and no temp file', async () => {
    const folder = await tempDir()
    const file = path.join(folder, 'token.json')
    const versions = Array.from({ length: 8 }, (_, i) => String(i).repeat(200_000))
    await Promise.all(versions.map((text) => writeFileAtomic(file, text, { mode: 0o600, keepOld: false })))
    expect(versions).toContain(await readFile(file, 'utf8'))
    expect(await readdir(folder)).toEqual(['token.json'])
  })

  it('leaves the file as it was and removes its temp file when a step fails', async () => {
    const folder = await tempDir()
    const file = path.join(folder, 'state.json')
    await writeFileAtomic(file, 'one')
    // The previous version cannot be kept: a folder stands where `.old` goes.
    await mkdir(`${file}.old`)
    await expect(writeFileAtomic(file, 'two')).rejects.toThrow()
    expect(await readFile(file, 'utf8')).toBe('one')
    expect((await readdir(folder)).sort()).toEqual(['state.json', 'state.json.old'])
  })

  it('keeps the previous version by copying it, so the file itself is replaced only by the rename', async () => {
    const file = path.join(await tempDir(), 'state.json')
    await writeFileAtomic(file, 'one')
    const before = (await stat(file)).ino
    await writeFileAtomic(file, 'two')
    expect(await readFile(`${file}.old`, 'utf8')).toBe('one')
    expect((await stat(`${file}.old`)).ino).not.toBe(before)
  })
})

describe('target state', () => {
  it('starts fresh, round-trips and trims run history', async () => {
    const location = stateLocation(await tempDir(), 'team-a')
    const first = await loadState(location, 'team-a')
    expect(first.fresh).toBe(true)
    const state = emptyState('team-a')
    applyBaseChanges(state, [['tl/1', 'abc']])
    state.runs = Array.from({ length: 250 }, (_, i) => ({ runId: `r${i}`, command: 'export', startedAt: 'x', result: 'success' as const }))
    await saveState(location, state)
    const again = await loadState(location, 'team-a')
    expect(again.fresh).toBe(false)
    expect(Object.fromEntries(again.state.base)).toEqual({ 'tl/1': 'abc' })
    expect(again.state.runs).toHaveLength(200)
    expect(again.state.runs.at(-1)?.runId).toBe('r249')
  })

  it('refuses a corrupt or foreign state file with the path and a way out', async () => {
    const location = stateLocation(await tempDir(), 'team-a')
    await writeFileAtomic(location.stateFile, '{oops')
    await expect(loadState(location, 'team-a')).rejects.toMatchObject({
      code: 'TS_STATE',
      message: expect.stringContaining(location.stateFile),
    })
    await writeFileAtomic(location.stateFile, JSON.stringify({ ...emptyState('team-b') }))
    await expect(loadState(location, 'team-a')).rejects.toThrow(/belongs to target "team-b"/)
    await writeFileAtomic(location.stateFile, JSON.stringify({ ...emptyState('team-a'), version: 99 }))
    await expect(loadState(location, 'team-a')).rejects.toThrow(/version/)
  })

  it('refuses a base that is not an object of texts, naming the field (checked in one loop, not per entry by a schema)', async () => {
    const location = stateLocation(await tempDir(), 'team-a')
    for (const base of [{ 'tl/1': 'fp', 'tl/2': 7 }, ['fp'], null, 'fp']) {
      await writeFileAtomic(location.stateFile, JSON.stringify({ ...emptyState('team-a'), base }))
      await expect(loadState(location, 'team-a')).rejects.toThrow(/has base: must be an object of row key → fingerprint texts/)
    }
    const base = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`tl/${i}`, `fp${i}`]))
    await writeFileAtomic(location.stateFile, JSON.stringify({ ...emptyState('team-a'), base }))
    expect(Object.fromEntries((await loadState(location, 'team-a')).state.base)).toEqual(base)
  })
})

describe('lock', () => {
  it('refuses a second holder and names the lock file', async () => {
    const file = path.join(await tempDir(), 'lock')
    const lock = await acquireLock(file, { command: 'sync' })
    await expect(acquireLock(file, { command: 'export' })).rejects.toMatchObject({
      code: 'TS_LOCKED',
      message: expect.stringContaining(file),
    })
    await lock.release()
    const again = await acquireLock(file, { command: 'export' })
    expect(again.tookOver).toBeUndefined()
    await again.release()
  })

  it('takes over a lock whose process is gone or whose time ran out', async () => {
    const file = path.join(await tempDir(), 'lock')
    const stale = { pid: 999999, host: hostname(), command: 'sync', createdAt: 'x', expiresAt: new Date(Date.now() + 60_000).toISOString() }
    await writeFile(file, JSON.stringify(stale))
    const lock = await acquireLock(file, { command: 'export', isAlive: () => false })
    expect(lock.tookOver?.pid).toBe(999999)
    await lock.release()

    await writeFile(file, JSON.stringify({ ...stale, host: 'elsewhere', expiresAt: new Date(Date.now() - 1).toISOString() }))
    const expired = await acquireLock(file, { command: 'export', isAlive: () => true })
    expect(expired.tookOver?.host).toBe('elsewhere')
    await expired.release()
  })

  it('waits for an unreadable lock (another run between creating and writing it) and takes it over once it stayed so', async () => {
    const file = path.join(await tempDir(), 'lock')
    await writeFile(file, '')
    const written = new Date('2026-03-01T10:00:00Z')
    await utimes(file, written, written)
    const at = (ms: number) => () => written.getTime() + ms
    await expect(acquireLock(file, { command: 'export', now: at(UNREADABLE_GRACE_MS - 1) })).rejects.toMatchObject({
      code: 'TS_LOCKED',
      message: expect.stringContaining(file),
    })
    const lock = await acquireLock(file, { command: 'export', now: at(UNREADABLE_GRACE_MS) })
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({ pid: process.pid, command: 'export' })
    await lock.release()
  })

  it('waits as long as it is told for a live holder, polling, then names it', async () => {
    const file = path.join(await tempDir(), 'lock')
    const holder = await acquireLock(file, { command: 'sync' })
    let clock = 0
    const polls: number[] = []
    const waiting = acquireLock(file, {
      command: 'export',
      waitMs: 100,
      pollMs: 40,
      now: () => clock,
      sleep: async (ms) => {
        polls.push(ms)
        clock += ms
      },
    })
    await expect(waiting).rejects.toMatchObject({ code: 'TS_LOCKED', message: expect.stringContaining('(sync, pid') })
    expect(polls).toEqual([40, 40, 40])
    await holder.release()
  })

  it('reads a refresh lock written before the one lock ({pid, expiresAt} in epoch ms) as held on this host', async () => {
    const file = path.join(await tempDir(), 'lock')
    await writeFile(file, JSON.stringify({ pid: 999999, expiresAt: Date.now() + 60_000 }))
    await expect(acquireLock(file, { command: 'token refresh', isAlive: () => true })).rejects.toMatchObject({ code: 'TS_LOCKED' })
    const lock = await acquireLock(file, { command: 'token refresh', isAlive: () => false })
    expect(lock.tookOver).toMatchObject({ pid: 999999, host: hostname() })
    await lock.release()
  })

  it('keeps a live lock on another host until it expires', async () => {
    const file = path.join(await tempDir(), 'lock')
    await writeFile(
      file,
      JSON.stringify({
        pid: 1,
        host: 'elsewhere',
        command: 'sync',
        createdAt: 'x',
        expiresAt: new Date(Date.now() + 60_000).toISOString(),
      }),
    )
    await expect(acquireLock(file, { command: 'export', isAlive: () => false })).rejects.toMatchObject({ code: 'TS_LOCKED' })
  })
})
