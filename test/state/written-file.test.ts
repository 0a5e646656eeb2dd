/**
 * The digests of rows as written (decisions/0013) in a file of their own beside state.json: written afresh
 * when they change, kept as they are when not, read with the bases (also when those were deferred), and a
 * cache throughout: a file missing or damaged reads as no digests, never as an error.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { applyBaseChanges, applyWrittenChanges, emptyState, loadState, saveState, stateLocation } from '../../src/state/target-state.ts'

async function saved(digests: [string, number][], context = 'ctx-1') {
  const location = stateLocation(await mkdtemp(path.join(tmpdir(), 'ts-written-file-')), 'team')
  const state = emptyState('team')
  applyBaseChanges(
    state,
    digests.map(([key]) => [key, 'fp']),
  )
  applyWrittenChanges(state, context, digests)
  await saveState(location, state)
  return { location, state }
}

async function writtenFiles(folder: string): Promise<string[]> {
  return (await readdir(folder)).filter((name) => name.startsWith('written-')).sort()
}

describe('digests of rows as written, beside the state', () => {
  it('saves them in a file state.json names, and loads them with the bases, deferred or not', async () => {
    const { location, state } = await saved([
      ['tl/1', 12345],
      ['tl/2', 2 ** 52 - 1],
    ])
    expect(await writtenFiles(location.folder)).toEqual([state.writtenFile])
    expect(JSON.parse(await readFile(location.stateFile, 'utf8'))).toMatchObject({ writtenFile: state.writtenFile })
    expect(JSON.parse(await readFile(path.join(location.folder, state.writtenFile!), 'utf8'))).toEqual({
      context: 'ctx-1',
      rows: ['tl/1', 12345, 'tl/2', 2 ** 52 - 1],
    })
    const loaded = (await loadState(location, 'team')).state
    expect(loaded.written.context).toBe('ctx-1')
    expect([...loaded.written.digests]).toEqual([
      ['tl/1', 12345],
      ['tl/2', 2 ** 52 - 1],
    ])
    const deferred = await loadState(location, 'team', { deferBases: true })
    expect(deferred.state.written.digests.size).toBe(0)
    await deferred.loadBases()
    expect(deferred.state.written.digests.get('tl/2')).toBe(2 ** 52 - 1)
  })

  it('a save with the digests unchanged keeps their file; a change writes a new one and drops the one before last', async () => {
    const { location, state } = await saved([['tl/1', 1]])
    const first = state.writtenFile!
    // A run that left the bases unread (a quiet night) changes nothing, and writes no row: the file stays.
    const quiet = await loadState(location, 'team', { deferBases: true })
    applyWrittenChanges(quiet.state, 'ctx-1', [])
    await saveState(location, quiet.state)
    expect(quiet.state.writtenFile).toBe(first)
    expect(await writtenFiles(location.folder)).toEqual([first])

    const loaded = (await loadState(location, 'team')).state
    applyWrittenChanges(loaded, 'ctx-1', [['tl/1', 1]])
    await saveState(location, loaded)
    expect(loaded.writtenFile).toBe(first)
    applyWrittenChanges(loaded, 'ctx-1', [['tl/2', 2]])
    await saveState(location, loaded)
    const second = loaded.writtenFile!
    expect(second).not.toBe(first)
    // The previous file stays for state.json.old, which names it.
    expect(await writtenFiles(location.folder)).toEqual([first, second].sort())
    applyWrittenChanges(loaded, 'ctx-1', [['tl/1', null]])
    await saveState(location, loaded)
    expect(await writtenFiles(location.folder)).toEqual([second, loaded.writtenFile!].sort())
    expect([...(await loadState(location, 'team')).state.written.digests]).toEqual([['tl/2', 2]])
  })

  it('digests of another zone or users are dropped when rows are written under a new one', async () => {
    const { location } = await saved([['tl/1', 1]], 'berlin')
    const loaded = (await loadState(location, 'team')).state
    applyWrittenChanges(loaded, 'tokyo', [['tl/2', 2]])
    await saveState(location, loaded)
    const again = (await loadState(location, 'team')).state.written
    expect(again.context).toBe('tokyo')
    expect([...again.digests]).toEqual([['tl/2', 2]])
  })

  it('forgetting every digest leaves no file, and state.json names none', async () => {
    const { location, state } = await saved([['tl/1', 1]])
    applyWrittenChanges(state, 'ctx-1', [['tl/1', null]])
    await saveState(location, state)
    expect(state.writtenFile).toBeUndefined()
    expect(JSON.parse(await readFile(location.stateFile, 'utf8')).writtenFile).toBeUndefined()
    await saveState(location, state)
    expect(await writtenFiles(location.folder)).toEqual([])
  })

  it.each([
    ['missing', async (file: string) => rm(file)],
    ['not JSON', async (file: string) => writeFile(file, '{"context": "ctx-1", "rows": [')],
    ['rows not in pairs', async (file: string) => writeFile(file, JSON.stringify({ context: 'ctx-1', rows: ['tl/1'] }))],
    ['a digest that is text', async (file: string) => writeFile(file, JSON.stringify({ context: 'ctx-1', rows: ['tl/1', '1'] }))],
    ['a digest past 2^53', async (file: string) => writeFile(file, JSON.stringify({ context: 'ctx-1', rows: ['tl/1', 2 ** 60] }))],
    ['no context', async (file: string) => writeFile(file, JSON.stringify({ rows: ['tl/1', 1] }))],
    ['null', async (file: string) => writeFile(file, 'null')],
  ])('a written file %s reads as no digests; the bases load as ever', async (_what, damage) => {
    const { location, state } = await saved([['tl/1', 1]])
    await damage(path.join(location.folder, state.writtenFile!))
    for (const deferBases of [false, true]) {
      const loaded = await loadState(location, 'team', { deferBases })
      await loaded.loadBases()
      expect(loaded.state.written.digests.size).toBe(0)
      expect([...loaded.state.base]).toEqual([['tl/1', 'fp']])
    }
  })
})
