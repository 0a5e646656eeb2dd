/**
 * A workbook another program holds open (Excel on Windows, a file on a share): replacing it is refused. The save
 * tries again after 1, 2 and 4 s (the waits injected here), checking for someone's save before each try; when the
 * refusal stays, the file is exactly as it was, the temp file is gone, and the error names who has it open (from
 * the lock files beside it) and ends the run with its own code. On Windows the refusal is EPERM or EACCES too,
 * which on POSIX mean a missing permission and are not tried again.
 */
import { readFile, readdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { TimelineSheetsError } from '../../src/errors.ts'
import type { Snapshot } from '../../src/sheets/port.ts'
import { nodeFileSystem, saveAtomically, type FileStamp, type WorkbookFileSystem } from '../../src/sheets/workbook/file.ts'
import { WorkbookOpenError } from '../../src/sheets/workbook/open-by.ts'
import { retryOptions } from '../../src/http/retry.ts'
import { POSIX, WINDOWS, type Platform } from '../../src/state/platform.ts'
import { CONTRACT_TABS, activityRow } from '../contract/spreadsheet-contract.ts'
import { excelOwnerFile, libreOfficeLock } from './office-lock-files.ts'
import { createWorkbookFixture, editFile, type WorkbookFixture } from './workbook-fixture.ts'

const LAYOUT = { timeZone: 'Europe/Berlin' }
const fixtures: WorkbookFixture[] = []

afterEach(async () => {
  for (const made of fixtures.splice(0)) await made.cleanup()
})

const refusal = (code: string) => Object.assign(new Error(`${code}: resource busy or locked, rename`), { code })

/** A file system whose rename over the workbook is refused with `code` the next `times` times (all: Infinity). */
function holdingOpen(code: string): { fileSystem: WorkbookFileSystem; refuse(times: number): void; refused(): number } {
  let left = 0
  let refused = 0
  return {
    refuse: (times) => {
      left = times
    },
    refused: () => refused,
    fileSystem: {
      ...nodeFileSystem,
      rename: async (from, to) => {
        if (left > 0) {
          left--
          refused++
          throw refusal(code)
        }
        return nodeFileSystem.rename(from, to)
      },
    },
  }
}

/** Waits that take no time and are recorded; `during` runs in the wait it is given for (1-based). */
function recordedWaits(during: Record<number, () => Promise<void>> = {}): { waits: number[]; sleep(ms: number): Promise<void> } {
  const waits: number[] = []
  return {
    waits,
    sleep: async (ms) => {
      waits.push(ms)
      await during[waits.length]?.()
    },
  }
}

async function laidOut(
  fileSystem: WorkbookFileSystem,
  sleep: (ms: number) => Promise<void>,
  platform: Platform = POSIX,
): Promise<{ made: WorkbookFixture; basis: Snapshot }> {
  const made = await createWorkbookFixture({ fileSystem, heldOpen: { platform, retry: { ...heldOpenRetry(), sleep } } })
  fixtures.push(made)
  await made.spreadsheet.ensureLayout(CONTRACT_TABS, LAYOUT)
  const empty = await made.spreadsheet.read(['Activities'])
  await made.spreadsheet.write([{ tab: 'Activities', appends: [activityRow(1), activityRow(2)] }], empty)
  return { made, basis: await made.spreadsheet.read(['Activities']) }
}

/** The policy a run uses: three repeats, 1 s doubling to 4 s. */
function heldOpenRetry() {
  return retryOptions({ limit: 3, baseDelay: 1000, backoffLimit: 4000, jitter: 0 })
}

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  )
}

describe('a workbook held open while a write replaces it', () => {
  it('tries 4 times over 7 s, then names who has it open; the file is as it was and no temp file is left', async () => {
    const hold = holdingOpen('EBUSY')
    const clock = recordedWaits()
    const { made, basis } = await laidOut(hold.fileSystem, clock.sleep)
    await writeFile(
      path.join(made.folder, '.~lock.team.xlsx#'),
      libreOfficeLock('Ann Example,ann,ANN-PC,12.03.2026 10:15,file:///home/ann/.config/libreoffice/4;'),
    )
    await writeFile(path.join(made.folder, '~$team.xlsx'), excelOwnerFile('Bob Builder'))
    const before = await readFile(made.file)

    hold.refuse(Infinity)
    const error = await failureOf(made.spreadsheet.write([{ tab: 'Activities', deleteRows: [2], appends: [activityRow(9)] }], basis))

    expect(error).toBeInstanceOf(WorkbookOpenError)
    const open = error as WorkbookOpenError
    expect(open.code).toBe('TS_WORKBOOK_OPEN')
    expect(open.message).toContain(made.file)
    expect(open.message).toContain('EBUSY, tried 4 times over 7 s')
    expect(open.message).toContain('Ann Example (LibreOffice on ANN-PC, since 12.03.2026 10:15) and Bob Builder (Excel) have it open')
    expect(open.message).toContain('nothing is lost')
    expect(open.hint).toBe(`Ask Ann Example to close ${made.file} in LibreOffice (or close it yourself), then run again.`)
    expect(clock.waits).toEqual([1000, 2000, 4000])
    expect(hold.refused()).toBe(4)

    expect(Buffer.compare(await readFile(made.file), before)).toBe(0)
    expect((await readdir(made.folder)).filter((name) => name.endsWith('.tmp'))).toEqual([])
    expect((await made.spreadsheet.read(['Activities'])).tabs['Activities']!.rows).toEqual([activityRow(1), activityRow(2)])
  })

  it('says so when no lock file names anyone, and how to go on', async () => {
    const hold = holdingOpen('EBUSY')
    const { made, basis } = await laidOut(hold.fileSystem, recordedWaits().sleep)
    hold.refuse(Infinity)
    const error = (await failureOf(made.spreadsheet.write([{ tab: 'Activities', appends: [activityRow(3)] }], basis))) as WorkbookOpenError
    expect(error.code).toBe('TS_WORKBOOK_OPEN')
    expect(error.message).toContain('no Excel or LibreOffice lock file beside it names who has it open')
    expect(error.hint).toContain(`Close ${made.file} in Excel or LibreOffice, then run again`)
  })

  it('writes once the hold passes, after as few waits as it took', async () => {
    const hold = holdingOpen('EBUSY')
    const clock = recordedWaits()
    const { made, basis } = await laidOut(hold.fileSystem, clock.sleep)
    hold.refuse(2)
    await made.spreadsheet.write([{ tab: 'Activities', appends: [activityRow(3)] }], basis)
    expect(clock.waits).toEqual([1000, 2000])
    expect((await readdir(made.folder)).filter((name) => name.endsWith('.tmp'))).toEqual([])
    expect((await made.spreadsheet.read(['Activities'])).tabs['Activities']!.rows).toEqual([activityRow(1), activityRow(2), activityRow(3)])
  })

  it("keeps a person's save made during a wait: the write is applied again on top of it", async () => {
    const hold = holdingOpen('EBUSY')
    let file = ''
    // While the run waits, the person who held the file saves it (a note in a row the write does not touch) and closes it.
    const clock = recordedWaits({ 1: () => editFile(file, 'Activities', (sheet) => (sheet.getCell('H2').value = 'saved while held')) })
    const { made, basis } = await laidOut(hold.fileSystem, clock.sleep)
    file = made.file
    hold.refuse(1)
    await made.spreadsheet.write([{ tab: 'Activities', appends: [activityRow(3)] }], basis)
    const rows = (await made.spreadsheet.read(['Activities'])).tabs['Activities']!.rows
    expect(rows[0]![7]).toBe('saved while held')
    expect(rows.slice(1)).toEqual([activityRow(2), activityRow(3)])
  })
})

/** An in-memory file system holding Windows paths, whose rename over `held` is refused with `code`. */
function memoryFileSystem(held: string, code: string): { fileSystem: WorkbookFileSystem; files: Map<string, Uint8Array>; renames: number } {
  const files = new Map<string, Uint8Array>()
  const state = { files, renames: 0, fileSystem: undefined as unknown as WorkbookFileSystem }
  const stampOf = (data: Uint8Array): FileStamp => ({ size: data.byteLength, mtimeMs: 1, ctimeMs: 1, ino: data.byteLength })
  const missing = (file: string) => Object.assign(new Error(`ENOENT: ${file}`), { code: 'ENOENT' })
  state.fileSystem = {
    readFile: async (file) => files.get(file) ?? Promise.reject(missing(file)),
    stat: async (file) => (files.has(file) ? stampOf(files.get(file)!) : undefined),
    writeFileDurably: async (file, data) => void files.set(file, data),
    copyFile: async (from, to) => {
      const data = files.get(from)
      if (data === undefined) throw missing(from)
      files.set(to, data)
    },
    rename: async (from, to) => {
      state.renames++
      if (to === held) throw refusal(code)
      files.set(to, files.get(from)!)
      files.delete(from)
    },
    unlink: async (file) => void files.delete(file),
    syncFolder: async () => undefined,
  }
  return state
}

describe('replacing a workbook another program holds open, by platform', () => {
  const file = 'C:\\Users\\ann\\Documents\\Team.xlsx'
  const policy = (platform: Platform, waits: number[]) => ({
    platform,
    retry: { ...heldOpenRetry(), sleep: async (ms: number) => void waits.push(ms) },
  })

  it.each(['EPERM', 'EACCES', 'EBUSY'])('Windows: %s is the hold; tried again, then who has it open (Excel)', async (code) => {
    const memory = memoryFileSystem(file, code)
    memory.files.set(file, Buffer.from('old'))
    memory.files.set('C:\\Users\\ann\\Documents\\~$Team.xlsx', excelOwnerFile('Ann Example'))
    const waits: number[] = []
    const error = await failureOf(saveAtomically(memory.fileSystem, file, Buffer.from('new'), undefined, policy(WINDOWS, waits)))
    expect(error).toBeInstanceOf(WorkbookOpenError)
    expect((error as WorkbookOpenError).message).toContain(`${code}, tried 4 times`)
    expect((error as WorkbookOpenError).hint).toContain('Ask Ann Example to close')
    expect(waits).toEqual([1000, 2000, 4000])
    // The old bytes stay; the temp file beside it, in the same Windows folder, is gone.
    expect(Buffer.from(memory.files.get(file)!).toString()).toBe('old')
    expect([...memory.files.keys()].sort()).toEqual([file, `${file}.bak`, 'C:\\Users\\ann\\Documents\\~$Team.xlsx'].sort())
  })

  it.each(['EPERM', 'EACCES'])('the same %s on POSIX is a missing permission: said at once, not waited on', async (code) => {
    const posixFile = '/srv/share/Team.xlsx'
    const refusals = { [WINDOWS.path.sep]: 0, [POSIX.path.sep]: 0 }
    for (const [platform, target] of [
      [WINDOWS, file],
      [POSIX, posixFile],
    ] as const) {
      const memory = memoryFileSystem(target, code)
      memory.files.set(target, Buffer.from('old'))
      const waits: number[] = []
      const error = await failureOf(saveAtomically(memory.fileSystem, target, Buffer.from('new'), undefined, policy(platform, waits)))
      refusals[platform.path.sep] = memory.renames
      if (platform === WINDOWS) continue
      expect(error).toBeInstanceOf(TimelineSheetsError)
      expect(error).not.toBeInstanceOf(WorkbookOpenError)
      expect((error as TimelineSheetsError).code).toBe('TS_WORKBOOK')
      expect((error as TimelineSheetsError).message).toContain(`not permitted (${code})`)
      expect(waits).toEqual([])
    }
    // Four tries where the code means a hold, one where it means a permission.
    expect(refusals).toEqual({ [WINDOWS.path.sep]: 4, [POSIX.path.sep]: 1 })
  })
})
