/**
 * Every error the tool throws carries a code from the one `ErrorCode` union: a class in src/ extends
 * `TimelineSheetsError`, or `InternalError`, which names its code and the function that converts it where it is
 * caught. A new class that extends `Error` (or another built-in error) directly fails here, and so does an
 * internal one whose converting function is not in the file it names.
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { toCliFailure } from '../src/cli/errors.ts'
import { InternalError, TimelineSheetsError } from '../src/errors.ts'
import { SavedMeanwhile } from '../src/sheets/workbook/file.ts'
import { SheetFormatError } from '../src/sheets/workbook/sheet-xml.ts'
import { XmlPartError } from '../src/sheets/workbook/xml-parts.ts'
import { ZipFormatError } from '../src/sheets/workbook/zip.ts'
import { StaleSheetIdError } from '../src/sheets/google/write-targets.ts'

const SRC = path.resolve(import.meta.dirname, '../src')
/** The two classes that may extend Error itself: every other error class extends one of them. */
const ROOTS = new Set(['TimelineSheetsError', 'InternalError'])
const BUILT_IN_ERRORS = new Set([
  'Error',
  'TypeError',
  'RangeError',
  'SyntaxError',
  'ReferenceError',
  'EvalError',
  'URIError',
  'AggregateError',
])

interface ErrorClass {
  file: string
  name: string
  base: string
  /** The class's text up to the next class (its fields come first). */
  body: string
}

function sources(): { file: string; text: string }[] {
  return readdirSync(SRC, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => {
      const file = path.join(entry.parentPath, entry.name)
      return { file: path.relative(SRC, file), text: readFileSync(file, 'utf8') }
    })
}

function errorClasses(): ErrorClass[] {
  const found: ErrorClass[] = []
  for (const { file, text } of sources()) {
    for (const m of text.matchAll(/class\s+(\w+)\s+extends\s+([\w.]+)/g)) {
      const base = m[2]!.replace(/^globalThis\./, '')
      if (!/Error$/.test(base) && !ROOTS.has(base)) continue
      const next = text.indexOf('\nclass ', m.index + 1)
      const nextExport = text.indexOf('\nexport class ', m.index + 1)
      const end = Math.min(...[next, nextExport, text.length].filter((at) => at > 0))
      found.push({ file, name: m[1]!, base, body: text.slice(m.index, end) })
    }
  }
  return found
}

/** The classes that extend InternalError, directly or through another one. */
function internalClasses(classes: ErrorClass[]): ErrorClass[] {
  const names = new Set(['InternalError'])
  let grew = true
  while (grew) {
    grew = false
    for (const c of classes) if (names.has(c.base) && !names.has(c.name)) grew = Boolean(names.add(c.name))
  }
  return classes.filter((c) => c.name !== 'InternalError' && names.has(c.name))
}

describe('the errors of the tool', () => {
  it('extend TimelineSheetsError or InternalError; only those two extend a built-in error', () => {
    const classes = errorClasses()
    const direct = classes.filter((c) => BUILT_IN_ERRORS.has(c.base) && !ROOTS.has(c.name))
    expect(direct).toEqual([])
    // The scan itself finds the classes it checks.
    expect(classes.map((c) => c.name)).toEqual(expect.arrayContaining(['ZipFormatError', 'SavedMeanwhile', 'HttpError', 'FileAccessError']))
  })

  it('internal ones name a function in src/ that converts them, declared in the file they name', () => {
    const internal = internalClasses(errorClasses())
    expect(internal.map((c) => c.name).sort()).toEqual(
      ['SavedMeanwhile', 'SheetFormatError', 'StaleSheetIdError', 'XmlPartError', 'ZipFormatError'].sort(),
    )
    for (const c of internal) {
      const said = /readonly convertedBy =\s*['"]([\w ]+?) \(([\w/.-]+\.ts)\): [^'"]+['"]/.exec(c.body)
      expect(said, `${c.name} (${c.file}) says which function converts it: "name (file from src/): why"`).not.toBeNull()
      const text = readFileSync(path.join(SRC, said![2]!), 'utf8')
      for (const fn of said![1]!.split(/,? and |, /)) {
        expect(text, `${c.name}: ${fn} in ${said![2]}`).toMatch(new RegExp(`\\b(?:function|const|let)\\s+${fn}\\b`))
      }
    }
  })

  it('carry a code from the union, are no TimelineSheetsError, and one escaping unconverted is still reported as a bug', () => {
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
      expect(toCliFailure(error)).toMatchObject({ exitCode: 1, code: 'TS_INTERNAL', message: `Unexpected error: ${error.message}` })
    }
  })
})
