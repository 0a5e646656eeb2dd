/**
 * The digests of rows as written (decisions/0013) in a file of their own beside state.json, one number per base
 * in the base file's order: written afresh when they or the bases change, kept as they are when not, read with
 * the bases (also when those were deferred), and a cache throughout: a file missing, damaged or of another base
 * file reads as no digests, never as an error.
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

function written(fields: object): string {
  return JSON.stringify({ context: 'ctx-1', ...fields })
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
      baseFile: state.baseFile,
      digests: [12345, 2 ** 52 - 1],
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
    applyBaseChanges(loaded, [['tl/2', 'fp']])
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

  it('a base changed alone writes the digests again, in the new base file’s order; a base without a digest has none', async () => {
    const { location, state } = await saved([
      ['tl/1', 1],
      ['tl/2', 2],
    ])
    const first = state.writtenFile!
    applyBaseChanges(state, [
      ['tl/1', null],
      ['tl/3', 'fp'],
    ])
    await saveState(location, state)
    expect(state.writtenFile).not.toBe(first)
    expect(JSON.parse(await readFile(path.join(location.folder, state.writtenFile!), 'utf8'))).toEqual({
      context: 'ctx-1',
      baseFile: state.baseFile,
      digests: [2, -1],
    })
    expect([...(await loadState(location, 'team')).state.written.digests]).toEqual([['tl/2', 2]])
  })

  it('a written file of another base file (a crash between the saves) reads as no digests', async () => {
    const { location, state } = await saved([['tl/1', 1]])
    const older = { ...JSON.parse(await readFile(location.stateFile, 'utf8')) }
    applyBaseChanges(state, [['tl/1', 'fp2']])
    applyWrittenChanges(state, 'ctx-1', [['tl/1', 7]])
    await saveState(location, state)
    // state.json as before the save: the older base file, with the newer digests' file.
    await writeFile(location.stateFile, JSON.stringify({ ...older, writtenFile: state.writtenFile }))
    const loaded = (await loadState(location, 'team')).state
    expect([...loaded.base]).toEqual([['tl/1', 'fp']])
    expect(loaded.written.digests.size).toBe(0)
  })

  it('digests of another zone or users are dropped when rows are written under a new one', async () => {
    const { location } = await saved([['tl/1', 1]], 'berlin')
    const loaded = (await loadState(location, 'team')).state
    applyBaseChanges(loaded, [['tl/2', 'fp']])
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
    ['not JSON', async (file: string) => writeFile(file, '{"context": "ctx-1", "digests": [')],
    ['with more digests than bases', async (file: string, baseFile: string) => writeFile(file, written({ baseFile, digests: [1, 2] }))],
    ['with a digest that is text', async (file: string, baseFile: string) => writeFile(file, written({ baseFile, digests: ['1'] }))],
    ['with a digest past 2^53', async (file: string, baseFile: string) => writeFile(file, written({ baseFile, digests: [2 ** 60] }))],
    ['with a digest below −1', async (file: string, baseFile: string) => writeFile(file, written({ baseFile, digests: [-2] }))],
    ['without a context', async (file: string, baseFile: string) => writeFile(file, JSON.stringify({ baseFile, digests: [1] }))],
    ['naming no base file', async (file: string) => writeFile(file, written({ digests: [1] }))],
    ['null', async (file: string) => writeFile(file, 'null')],
  ])('a written file %s reads as no digests; the bases load as ever', async (_what, damage) => {
    const { location, state } = await saved([['tl/1', 1]])
    await damage(path.join(location.folder, state.writtenFile!), state.baseFile!)
    for (const deferBases of [false, true]) {
      const loaded = await loadState(location, 'team', { deferBases })
      await loaded.loadBases()
      expect(loaded.state.written.digests.size).toBe(0)
      expect([...loaded.state.base]).toEqual([['tl/1', 'fp']])
    }
  })
})
