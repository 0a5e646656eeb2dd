/**
 * A run that plans no row (a quiet export) leaves the base file unread. Until `loadBases`, every use
 * of `state.base` throws, so a run that needs bases and forgot to load them fails loudly instead of taking an
 * empty map for "no bases"; a save of such a state keeps naming the file it did not read.
 */
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { TimelineSheetsError } from '../../src/errors.ts'
import { applyBaseChanges, emptyState, loadState, saveState, stateLocation } from '../../src/state/target-state.ts'

async function saved(bases: Record<string, string>) {
  const location = stateLocation(await mkdtemp(path.join(tmpdir(), 'ts-deferred-')), 'team')
  const state = emptyState('team')
  applyBaseChanges(state, Object.entries(bases))
  await saveState(location, state)
  return location
}

describe('bases left unread until a run needs them', () => {
  it('every use of unread bases throws; loadBases reads them all', async () => {
    const location = await saved({ 'tl/1': 'a', 'tl/2': 'b' })
    const loaded = await loadState(location, 'team', { deferBases: true })
    const base = loaded.state.base
    for (const use of [
      () => base.size,
      () => base.get('tl/1'),
      () => base.has('tl/1'),
      () => [...base],
      () => [...base.keys()],
      () => [...base.values()],
      () => [...base.entries()],
      () => base.forEach(() => undefined),
      () => applyBaseChanges(loaded.state, [['tl/3', 'c']]),
    ])
      expect(use).toThrow(/were not read: this run must call loadBases\(\)/)
    await loaded.loadBases()
    expect(Object.fromEntries(loaded.state.base)).toEqual({ 'tl/1': 'a', 'tl/2': 'b' })
    // A second call changes nothing.
    const once = loaded.state.base
    await loaded.loadBases()
    expect(loaded.state.base).toBe(once)
  })

  it('a save of a state whose bases were never read keeps the base file, and a later load finds every base', async () => {
    const location = await saved({ 'tl/1': 'a', 'tl/2': 'b' })
    const before = (await readdir(location.folder)).filter((n) => n.startsWith('base-'))
    const loaded = await loadState(location, 'team', { deferBases: true })
    // No base changed: an empty change set touches nothing, read or not.
    applyBaseChanges(loaded.state, [])
    loaded.state.runs.push({ runId: 'r', command: 'export', startedAt: 'x', finishedAt: 'y', result: 'success', summary: 'quiet' })
    await saveState(location, loaded.state)
    expect((await readdir(location.folder)).filter((n) => n.startsWith('base-'))).toEqual(before)
    const again = await loadState(location, 'team')
    expect(Object.fromEntries(again.state.base)).toEqual({ 'tl/1': 'a', 'tl/2': 'b' })
    expect(again.state.runs.map((r) => r.summary)).toEqual(['quiet'])
  })

  it('a damaged base file is reported when the bases are read, naming the file', async () => {
    const location = await saved({ 'tl/1': 'a' })
    const json = JSON.parse(await readFile(location.stateFile, 'utf8')) as { baseFile: string }
    const file = path.join(location.folder, json.baseFile)
    await writeFile(file, '{"not": "pairs"')
    const loaded = await loadState(location, 'team', { deferBases: true })
    const failure = await loaded.loadBases().then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(failure).toBeInstanceOf(TimelineSheetsError)
    expect((failure as TimelineSheetsError).code).toBe('TS_STATE')
    expect((failure as Error).message).toContain(file)
  })

  it('older states (bases inline or in an object file) are read at once, whatever the option', async () => {
    const location = await saved({ 'tl/1': 'a' })
    await writeFile(location.stateFile, JSON.stringify({ version: 1, target: 'team', timelines: {}, runs: [], base: { 'tl/9': 'z' } }))
    const loaded = await loadState(location, 'team', { deferBases: true })
    expect(Object.fromEntries(loaded.state.base)).toEqual({ 'tl/9': 'z' })
  })
})
