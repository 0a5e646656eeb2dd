/**
 * Every error the tool throws carries a code from the one `ErrorCode` union: a class in src/ extends
 * `TimelineSheetsError`, or `InternalError`, which names its code and where it is converted. A new class that
 * extends `Error` directly fails here.
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { InternalError, TimelineSheetsError } from '../src/errors.ts'
import { SavedMeanwhile } from '../src/sheets/workbook/file.ts'
import { SheetFormatError } from '../src/sheets/workbook/sheet-xml.ts'
import { XmlPartError } from '../src/sheets/workbook/xml-parts.ts'
import { ZipFormatError } from '../src/sheets/workbook/zip.ts'
import { StaleSheetIdError } from '../src/sheets/google/write-targets.ts'

const SRC = path.resolve(import.meta.dirname, '../src')
/** The two classes that may extend Error itself: every other error class extends one of them. */
const ROOTS = new Set(['TimelineSheetsError', 'InternalError'])

function errorClasses(): { file: string; name: string; base: string }[] {
  const found: { file: string; name: string; base: string }[] = []
  for (const entry of readdirSync(SRC, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue
    const file = path.join(entry.parentPath, entry.name)
    for (const m of readFileSync(file, 'utf8').matchAll(/class\s+(\w+)\s+extends\s+(\w+)/g)) {
      if (/Error$|^Error$/.test(m[2]!) || ROOTS.has(m[2]!)) found.push({ file: path.relative(SRC, file), name: m[1]!, base: m[2]! })
    }
  }
  return found
}

describe('the errors of the tool', () => {
  it('extend TimelineSheetsError or InternalError; only those two extend Error itself', () => {
    const direct = errorClasses().filter((c) => c.base === 'Error' && !ROOTS.has(c.name))
    expect(direct).toEqual([])
    // The scan itself finds the classes it checks.
    expect(errorClasses().map((c) => c.name)).toEqual(expect.arrayContaining(['ZipFormatError', 'LinkRefused', 'HttpError']))
  })

  it('carry a code from the union, internal ones with where they are converted, and are no TimelineSheetsError', () => {
    const internal = [
      new ZipFormatError('x'),
      new XmlPartError('x'),
      new SheetFormatError('x'),
      new SavedMeanwhile('book.xlsx'),
      new StaleSheetIdError('Activities'),
    ]
    for (const error of internal) {
      expect(error).toBeInstanceOf(InternalError)
      expect(error).not.toBeInstanceOf(TimelineSheetsError)
      expect(error.code).toMatch(/^TS_[A-Z_]+$/)
      expect(error.convertedBy).not.toBe('')
    }
  })
})
