/**
 * Who has a workbook open, read from the lock files LibreOffice (`.~lock.<name>#`) and Excel (`~$<name>`) keep
 * beside it: the user each names, found beside the workbook on Windows and POSIX paths alike, and nobody — never
 * a failure — for a file that is garbled, empty or unreadable.
 */
import { describe, expect, it } from 'vitest'
import { holdersOf, lockFilesOf, parseExcelOwner, parseLibreOfficeLock } from '../../src/sheets/workbook/open-by.ts'
import { POSIX, WINDOWS } from '../../src/state/platform.ts'
import { excelOwnerFile, libreOfficeLock } from './office-lock-files.ts'

/** A Word-shaped owner file: zero padding, the UTF-16 copy at 54, 162 bytes. */
function wordOwnerFile(user: string): Uint8Array {
  const bytes = new Uint8Array(162)
  bytes[0] = user.length
  Buffer.from(user, 'latin1').copy(bytes, 1)
  bytes[54] = user.length
  Buffer.from(user, 'utf16le').copy(bytes, 56)
  return bytes
}

describe("LibreOffice's .~lock.<name># file", () => {
  it('names the full name, the computer and since when', () => {
    expect(
      parseLibreOfficeLock(libreOfficeLock('Ann Example,ann,ANN-PC,12.03.2026 10:15,file:///C:/Users/ann/AppData/Roaming/LibreOffice/4;')),
    ).toEqual({
      user: 'Ann Example',
      host: 'ANN-PC',
      since: '12.03.2026 10:15',
    })
  })

  it('names the login when the full name is empty, as it often is', () => {
    expect(parseLibreOfficeLock(libreOfficeLock(',bob,bobs-laptop,12.03.2026 09:00,file:///home/bob/.config/libreoffice/4;')).user).toBe(
      'bob',
    )
  })

  it('reads escaped commas, semicolons and backslashes inside a name', () => {
    expect(parseLibreOfficeLock(libreOfficeLock('Example\\, Ann,EXAMPLE\\\\ann,PC,d,u;')).user).toBe('Example, Ann')
    expect(parseLibreOfficeLock(libreOfficeLock(',EXAMPLE\\\\ann,PC,d,u;')).user).toBe('EXAMPLE\\ann')
  })

  it('reads non-ASCII names (UTF-8)', () => {
    expect(parseLibreOfficeLock(libreOfficeLock('Jürgen Müller,jm,PC,d,u;')).user).toBe('Jürgen Müller')
  })

  it.each([
    ['an empty file', ''],
    ['only commas', ',,,,;'],
    ['binary garbage', '\u0000\u0001\u0002\u0003'],
  ])('names nobody in %s', (_label, text) => {
    expect(parseLibreOfficeLock(libreOfficeLock(text)).user).toBeUndefined()
  })

  it('keeps control characters out of the name it gives a message', () => {
    expect(parseLibreOfficeLock(libreOfficeLock('Ann\u001b[31m Example,ann,PC,d,u;')).user).toBe('Ann[31m Example')
  })
})

describe("Excel's ~$<name> owner file", () => {
  it('names the user from the UTF-16 copy at 55 (Excel)', () => {
    expect(parseExcelOwner(excelOwnerFile('Ann Example'))).toBe('Ann Example')
  })

  it('names the user from the UTF-16 copy at 54 (the Word layout)', () => {
    expect(parseExcelOwner(wordOwnerFile('Bob'))).toBe('Bob')
  })

  it('reads a name outside the code page from the UTF-16 copy', () => {
    const bytes = excelOwnerFile('Zoë Łukasz')
    expect(parseExcelOwner(bytes)).toBe('Zoë Łukasz')
  })

  it('falls back to the code-page name when the UTF-16 copy is missing (a short file)', () => {
    expect(parseExcelOwner(excelOwnerFile('Carol').subarray(0, 20))).toBe('Carol')
  })

  it.each([
    ['an empty file', new Uint8Array(0)],
    ['a length past the end', Uint8Array.from([200, 65, 66])],
    ['all zeros', new Uint8Array(165)],
    ['random bytes that read as no text', Uint8Array.from({ length: 165 }, (_, i) => (i * 37) % 32)],
  ])('names nobody in %s, and does not throw', (_label, bytes) => {
    expect(parseExcelOwner(bytes)).toBeUndefined()
  })
})

describe('where the lock files are', () => {
  it('beside a workbook on a Windows drive, with Windows separators', () => {
    expect(lockFilesOf('C:\\Users\\ann\\Documents\\Team.xlsx', WINDOWS).map((f) => f.lockFile)).toEqual([
      'C:\\Users\\ann\\Documents\\.~lock.Team.xlsx#',
      'C:\\Users\\ann\\Documents\\~$Team.xlsx',
    ])
  })

  it('beside a workbook on a share (UNC path), and with forward slashes', () => {
    expect(lockFilesOf('\\\\fileserver\\team\\Team.xlsx', WINDOWS).map((f) => f.lockFile)).toEqual([
      '\\\\fileserver\\team\\.~lock.Team.xlsx#',
      '\\\\fileserver\\team\\~$Team.xlsx',
    ])
    expect(lockFilesOf('D:/shared/Team.xlsx', WINDOWS).map((f) => f.lockFile)).toEqual([
      'D:\\shared\\.~lock.Team.xlsx#',
      'D:\\shared\\~$Team.xlsx',
    ])
  })

  it('beside a workbook on a POSIX path', () => {
    expect(lockFilesOf('/srv/share/Team.xlsx', POSIX).map((f) => f.lockFile)).toEqual([
      '/srv/share/.~lock.Team.xlsx#',
      '/srv/share/~$Team.xlsx',
    ])
  })

  it('reads both, and names the program of one it may not read (Excel holds its owner file open)', async () => {
    const files = new Map<string, Uint8Array | NodeJS.ErrnoException>([
      ['C:\\share\\.~lock.Team.xlsx#', libreOfficeLock(',ann,ANN-PC,12.03.2026 10:15,file:///;')],
      ['C:\\share\\~$Team.xlsx', Object.assign(new Error('busy'), { code: 'EBUSY' })],
    ])
    const read = async (file: string) => {
      const found = files.get(file)
      if (found === undefined) throw Object.assign(new Error('no such file'), { code: 'ENOENT' })
      if (found instanceof Error) throw found
      return found
    }
    expect(await holdersOf('C:\\share\\Team.xlsx', read, WINDOWS)).toEqual([
      { program: 'LibreOffice', user: 'ann', host: 'ANN-PC', since: '12.03.2026 10:15', lockFile: 'C:\\share\\.~lock.Team.xlsx#' },
      { program: 'Excel', user: undefined, lockFile: 'C:\\share\\~$Team.xlsx' },
    ])
    files.clear()
    expect(await holdersOf('C:\\share\\Team.xlsx', read, WINDOWS)).toEqual([])
  })
})
