/**
 * The bases (about 5 MB at 100,000 rows) live in a file of their own that state.json names, so a
 * run that changed none of them rewrites only the small state.json; a base file is never overwritten, so a
 * crash between the two writes, or a state.json recovered from its .old, still names a whole base file.
 */
import { mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { applyBaseChanges, emptyState, loadState, saveState, stateLocation, type TargetState } from '../../src/state/target-state.ts'

async function saved(bases: Record<string, string>) {
  const location = stateLocation(await mkdtemp(path.join(tmpdir(), 'ts-base-file-')), 'team')
  const state = emptyState('team')
  applyBaseChanges(state, Object.entries(bases))
  await saveState(location, state)
  return { location, state }
}

async function baseFiles(folder: string): Promise<string[]> {
  return (await readdir(folder)).filter((name) => name.startsWith('base-')).sort()
}

async function stateJson(file: string): Promise<{ version: number; baseFile?: string; base?: unknown }> {
  return JSON.parse(await readFile(file, 'utf8'))
}

describe('the bases in a file of their own', () => {
  it('writes state.json without the bases, naming the base file that holds them', async () => {
    const { location, state } = await saved({ 'tl/1': 'a', 'tl/2': 'b' })
    const json = await stateJson(location.stateFile)
    expect(json).toMatchObject({ version: 3, baseFile: state.baseFile })
    expect(json.base).toBeUndefined()
    expect(await baseFiles(location.folder)).toEqual([state.baseFile])
    // Version 3: one array of key, fingerprint, key, fingerprint (an object of 100,000 keys parsed several times slower).
    expect(JSON.parse(await readFile(path.join(location.folder, state.baseFile!), 'utf8'))).toEqual(['tl/1', 'a', 'tl/2', 'b'])
    expect(Object.fromEntries((await loadState(location, 'team')).state.base)).toEqual({ 'tl/1': 'a', 'tl/2': 'b' })
  })

  it('a save with the bases unchanged writes state.json only; a change writes a new base file and keeps the previous one', async () => {
    const { location, state } = await saved({ 'tl/1': 'a' })
    const first = state.baseFile!
    const loaded = (await loadState(location, 'team')).state
    // Setting a base to what it is, or forgetting one that is not there, changes nothing.
    applyBaseChanges(loaded, [
      ['tl/1', 'a'],
      ['tl/9', null],
    ])
    loaded.layoutHash = 'next run'
    await saveState(location, loaded)
    expect(loaded.baseFile).toBe(first)
    expect(await baseFiles(location.folder)).toEqual([first])
    expect((await stateJson(location.stateFile)) as unknown).toMatchObject({ layoutHash: 'next run', baseFile: first })

    applyBaseChanges(loaded, [['tl/2', 'b']])
    await saveState(location, loaded)
    const second = loaded.baseFile!
    expect(second).not.toBe(first)
    expect(await baseFiles(location.folder)).toEqual([first, second].sort())
    applyBaseChanges(loaded, [['tl/1', null]])
    await saveState(location, loaded)
    // The current one and the one state.json.old names stay; the one before goes.
    expect(await baseFiles(location.folder)).toEqual([second, loaded.baseFile!].sort())
    expect(Object.fromEntries((await loadState(location, 'team')).state.base)).toEqual({ 'tl/2': 'b' })
  })

  it('a crash after the new base file but before state.json loads the older, whole state', async () => {
    const { location, state } = await saved({ 'tl/1': 'a' })
    const before = await readFile(location.stateFile, 'utf8')
    applyBaseChanges(state, [['tl/1', 'changed']])
    await saveState(location, state)
    // state.json as it was: the crash came before its rename.
    await writeFile(location.stateFile, before)
    expect(Object.fromEntries((await loadState(location, 'team')).state.base)).toEqual({ 'tl/1': 'a' })
  })

  it('a state.json recovered from its .old still finds its base file', async () => {
    const { location, state } = await saved({ 'tl/1': 'a' })
    applyBaseChanges(state, [['tl/1', 'b']])
    await saveState(location, state)
    await rm(location.stateFile)
    const loaded = await loadState(location, 'team')
    expect(loaded.recoveredFrom).toBe(`${location.stateFile}.old`)
    expect(Object.fromEntries(loaded.state.base)).toEqual({ 'tl/1': 'a' })
  })

  it('refuses a state.json whose base file is gone or damaged, naming that file', async () => {
    const { location, state } = await saved({ 'tl/1': 'a' })
    const file = path.join(location.folder, state.baseFile!)
    await rename(file, `${file}.moved`)
    await expect(loadState(location, 'team')).rejects.toMatchObject({ code: 'TS_STATE', message: expect.stringContaining(file) })
    for (const damaged of ['["tl/1", 7]', '["tl/1"]', '["tl/1", "a", "tl/2"]', '{"tl/1": "a"}', 'null']) {
      await writeFile(file, damaged)
      await expect(loadState(location, 'team')).rejects.toMatchObject({
        code: 'TS_STATE',
        message: expect.stringMatching(/base-[0-9a-f]{16}\.json is not a list of row key and fingerprint texts, in pairs/),
      })
    }
    await writeFile(file, '{oops')
    await expect(loadState(location, 'team')).rejects.toThrow(/is not valid JSON/)
    // Cut short by a disk that filled up: still named, never half-loaded.
    await writeFile(file, '["tl/1", "a", "tl/2", "b')
    await expect(loadState(location, 'team')).rejects.toMatchObject({ code: 'TS_STATE', message: expect.stringContaining(file) })
  })

  it('refuses a base file name that is not one of its own (no path may leave the state folder)', async () => {
    const { location } = await saved({ 'tl/1': 'a' })
    const json = await stateJson(location.stateFile)
    await writeFile(location.stateFile, JSON.stringify({ ...json, baseFile: '../../elsewhere.json' }))
    await expect(loadState(location, 'team')).rejects.toMatchObject({ code: 'TS_STATE', message: expect.stringContaining('baseFile') })
  })

  it('loads a version 1 state (bases inline) and saves it as version 3', async () => {
    const location = stateLocation(await mkdtemp(path.join(tmpdir(), 'ts-base-file-')), 'team')
    const v1 = { version: 1, target: 'team', timelines: {}, base: { 'tl/1': 'a' }, runs: [] }
    await saveState(location, emptyState('team'))
    await writeFile(location.stateFile, JSON.stringify(v1))
    const { state } = await loadState(location, 'team')
    expect(Object.fromEntries(state.base)).toEqual({ 'tl/1': 'a' })
    await saveState(location, state as TargetState)
    expect(await stateJson(location.stateFile)).toMatchObject({ version: 3, baseFile: expect.stringMatching(/^base-/) })
    expect(Object.fromEntries((await loadState(location, 'team')).state.base)).toEqual({ 'tl/1': 'a' })
  })

  it('loads a version 2 state (its base file an object) and saves it as version 3, the old file kept for state.json.old', async () => {
    const location = stateLocation(await mkdtemp(path.join(tmpdir(), 'ts-base-file-')), 'team')
    // As a release of version 2 wrote them.
    const oldFile = 'base-0123456789abcdef.json'
    await mkdir(location.folder, { recursive: true })
    await writeFile(path.join(location.folder, oldFile), JSON.stringify({ 'tl/1': 'a', 'tl/2': 'b' }))
    await writeFile(location.stateFile, JSON.stringify({ version: 2, target: 'team', timelines: {}, baseFile: oldFile, runs: [] }))
    const { state } = await loadState(location, 'team')
    expect(Object.fromEntries(state.base)).toEqual({ 'tl/1': 'a', 'tl/2': 'b' })

    // Saved even unchanged, it writes a version 3 file; the old one stays while state.json.old names it.
    await saveState(location, state)
    const first = state.baseFile!
    expect(first).not.toBe(oldFile)
    expect(await stateJson(location.stateFile)).toMatchObject({ version: 3, baseFile: first })
    expect(JSON.parse(await readFile(path.join(location.folder, first), 'utf8'))).toEqual(['tl/1', 'a', 'tl/2', 'b'])
    expect(await baseFiles(location.folder)).toEqual([oldFile, first].sort())
    expect(Object.fromEntries((await loadState(location, 'team')).state.base)).toEqual({ 'tl/1': 'a', 'tl/2': 'b' })
    // state.json.old is the version 2 state: recovered from it, the old file is read as it was written.
    await rm(location.stateFile)
    const recovered = await loadState(location, 'team')
    expect(recovered.recoveredFrom).toBe(`${location.stateFile}.old`)
    expect(Object.fromEntries(recovered.state.base)).toEqual({ 'tl/1': 'a', 'tl/2': 'b' })

    // A later change is an ordinary version 3 save.
    applyBaseChanges(state, [['tl/3', 'c']])
    await saveState(location, state)
    expect(await stateJson(location.stateFile)).toMatchObject({ version: 3, baseFile: state.baseFile })
    expect(await baseFiles(location.folder)).toEqual([first, state.baseFile!].sort())
    expect(Object.fromEntries((await loadState(location, 'team')).state.base)).toEqual({ 'tl/1': 'a', 'tl/2': 'b', 'tl/3': 'c' })
  })

  it('refuses a version 2 base file that is not an object of texts, naming the file', async () => {
    const location = stateLocation(await mkdtemp(path.join(tmpdir(), 'ts-base-file-')), 'team')
    const file = path.join(location.folder, 'base-0123456789abcdef.json')
    await mkdir(location.folder, { recursive: true })
    await writeFile(
      location.stateFile,
      JSON.stringify({ version: 2, target: 'team', timelines: {}, baseFile: path.basename(file), runs: [] }),
    )
    await writeFile(file, '{"tl/1": 7}')
    await expect(loadState(location, 'team')).rejects.toMatchObject({
      code: 'TS_STATE',
      message: expect.stringMatching(
        /base-[0-9a-f]{16}\.json has tl\/1: must be an object of row key → fingerprint texts|must be an object/,
      ),
    })
    // A version 3 file under a version 2 state.json is no object either.
    await writeFile(file, '["tl/1", "a"]')
    await expect(loadState(location, 'team')).rejects.toMatchObject({ code: 'TS_STATE', message: expect.stringContaining(file) })
  })

  it('round-trips keys and fingerprints of any text, in their order', async () => {
    const bases: [string, string][] = [
      ['tl/2', 'b'],
      ['__proto__', 'p'],
      ['constructor', ''],
      ['tl/"quoted"\\back\nline', 'ü😀'],
      ['tl/1', 'a'],
    ]
    const location = stateLocation(await mkdtemp(path.join(tmpdir(), 'ts-base-file-')), 'team')
    const state = emptyState('team')
    applyBaseChanges(state, bases)
    await saveState(location, state)
    expect([...(await loadState(location, 'team')).state.base]).toEqual(bases)
  })
})
