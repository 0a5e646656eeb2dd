/**
 * Every error the tool throws carries a code from the one `ErrorCode` union: a class in src/ extends
 * `TimelineSheetsError`, or `InternalError`, which names its code and the function that converts it where it is
 * caught. A new class that extends `Error` (or another built-in error) directly fails here, and so does an
 * internal one whose converting function is not in the file it names. And an error is told apart by its code, its
 * class or a named predicate, never by its message: the few places a library gives nothing but text are named
 * predicates on a short allow-list, each saying which library and why.
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

/** Where src constructs a built-in error (`new TypeError(`, `new Error(`), which has no code. */
function builtInErrorsMade(files: { file: string; text: string }[]): string[] {
  const made = new RegExp(`\\bnew\\s+(?:globalThis\\.)?(?:${[...BUILT_IN_ERRORS].join('|')})\\s*\\(`, 'g')
  return files.flatMap(({ file, text }) =>
    [...code(text).matchAll(made)].map((m) => `${file.split(path.sep).join('/')}:${text.slice(0, m.index).split('\n').length}: ${m[0]}`),
  )
}

/**
 * The only built-in errors src makes: a stand-in for the one Node would throw, handed to the function that
 * converts Node's (the message is Node's own shape, and the conversion reads its `code`).
 */
const ALLOWED_BUILT_IN = [
  // fileAccessError on the next line turns it into a coded FileAccessError, as it does Node's ENOTDIR.
  { file: 'state/writable-folder.ts', made: 'new Error(' },
]

describe('an error is made', () => {
  it('finds a built-in error made when there is one (the scan itself)', () => {
    const planted = [
      'function a(letters) {\n  if (!letters) throw new TypeError(`Expected column letters, got ${letters}`)\n}',
      "const b = () => { throw new Error('no answer') }",
      "const c = new globalThis.RangeError('out of range')",
    ].map((text, i) => ({ file: `planted-${i}.ts`, text }))
    expect(builtInErrorsMade(planted)).toEqual([
      'planted-0.ts:2: new TypeError(',
      'planted-1.ts:1: new Error(',
      'planted-2.ts:1: new globalThis.RangeError(',
    ])
    const innocent = [
      "// a comment may say new TypeError('x')\nclass A extends TimelineSheetsError {}\nconst e = new OptionError('index', 'an integer >= 0', -1)",
    ].map((text) => ({ file: 'innocent.ts', text }))
    expect(builtInErrorsMade(innocent)).toEqual([])
  })

  it('with a code: src makes no bare TypeError nor Error, but through the coded option check or a coded class', () => {
    const made = builtInErrorsMade(sources()).filter(
      (at) => !ALLOWED_BUILT_IN.some((a) => at.startsWith(`${a.file}:`) && at.endsWith(a.made)),
    )
    expect(made, 'check an argument with checkOption (src/core/options.ts), or throw a TimelineSheetsError with a code').toEqual([])
  })
})

/** Ways of telling an error apart by its text. */
const READING_TEXT: { what: string; pattern: RegExp }[] = [
  { what: 'a message compared', pattern: /(?<!typeof\s+[\w.?]+)\bmessage\s*[!=]==?|[!=]==?\s*[\w.?]*\bmessage\b/ },
  { what: 'a message searched', pattern: /\bmessage\??\.(?:includes|startsWith|endsWith|match|matchAll|indexOf|lastIndexOf|search)\(/ },
  { what: 'a pattern tested on a message', pattern: /\.test\(\s*[\w.?]*\bmessage\s*\)/ },
  { what: "fetch's 'fetch failed'", pattern: /['"`]fetch failed['"`]/ },
]

/**
 * The only places that read an error's text: a library or service that gives nothing else. Each is a named
 * predicate whose comment names the library and says why; a new one belongs here only for the same reason.
 */
const ALLOWED_TEXT_READERS: { file: string; predicate: string; library: string }[] = [
  // decisions/0021: Google documents no status nor code for the protected-range refusal.
  { file: 'sheets/google/refusals.ts', predicate: 'isProtectedRefusal', library: 'Google Sheets API' },
  { file: 'sheets/google/refusals.ts', predicate: 'isUnparsableRange', library: 'Google Sheets API' },
  { file: 'sheets/google/refusals.ts', predicate: 'isStaleTabId', library: 'Google Sheets API' },
  { file: 'sheets/google/refusals.ts', predicate: 'isPayloadTooLarge', library: 'Google Sheets API' },
  { file: 'http/fetch-failure.ts', predicate: 'isFetchFailure', library: 'undici' },
  { file: 'sheets/google/adc-metadata.ts', predicate: 'isNotMetadataServer', library: 'gcp-metadata' },
  { file: 'timeline/http.ts', predicate: 'isConcurrencyRejection', library: 'Timeline API' },
]

/** Comments blanked out (same length, so positions hold): they may quote a message freely. */
function code(text: string): string {
  const blank = (m: string) => m.replace(/[^\n]/g, ' ')
  return text.replace(/\/\*[\s\S]*?\*\//g, blank).replace(/(?<![:'"`\w])\/\/[^\n]*/g, blank)
}

/** The top-level function a position lies in, with the comment just above it. */
function enclosingFunction(text: string, at: number): { name: string; comment: string } | undefined {
  for (const m of text.matchAll(/^(?:export\s+)?(?:async\s+)?function\s+(\w+)/gm)) {
    const end = text.indexOf('\n}', m.index)
    if (m.index < at && at < (end < 0 ? text.length : end)) {
      const comment = /\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*$/.exec(text.slice(0, m.index))?.[1] ?? ''
      return { name: m[1]!, comment }
    }
  }
  return undefined
}

interface TextReading {
  file: string
  line: number
  what: string
  predicate: string | undefined
  comment: string
}

function textReadings(files: { file: string; text: string }[]): TextReading[] {
  const found: TextReading[] = []
  for (const { file, text } of files) {
    const stripped = code(text)
    for (const { what, pattern } of READING_TEXT) {
      for (const m of stripped.matchAll(new RegExp(pattern.source, 'g'))) {
        const fn = enclosingFunction(text, m.index)
        const line = text.slice(0, m.index).split('\n').length
        found.push({ file, line, what, predicate: fn?.name, comment: fn?.comment ?? '' })
      }
    }
  }
  return found
}

describe('an error is recognised', () => {
  it('finds text read off an error when there is some (the scan itself)', () => {
    const planted = [
      'function a(error) {\n  if (/busy/i.test(error.message)) return 1\n}',
      "function b(e) {\n  return e.message.includes('busy')\n}",
      "function c(e) {\n  return e instanceof TypeError && e.message === 'fetch failed'\n}",
      "function d({ message }) {\n  return message.startsWith('no answer')\n}",
    ].map((text, i) => ({ file: `planted-${i}.ts`, text }))
    expect(textReadings(planted).map((r) => `${r.file}:${r.line} ${r.predicate}`)).toEqual(
      expect.arrayContaining(['planted-0.ts:2 a', 'planted-1.ts:2 b', 'planted-2.ts:2 c', 'planted-3.ts:2 d']),
    )
    const innocent = [
      "function e(e) {\n  // a comment may say 'fetch failed'\n  return typeof e.message === 'string' ? e.message : 'no message'\n}",
    ].map((text) => ({ file: 'innocent.ts', text }))
    expect(textReadings(innocent)).toEqual([])
  })

  it('by its code, its class or a named predicate, never by its message outside the allow-list', () => {
    const readings = textReadings(sources())
    const stray = readings
      .filter((r) => !ALLOWED_TEXT_READERS.some((a) => a.file === r.file.split(path.sep).join('/') && a.predicate === r.predicate))
      .map((r) => `${r.file}:${r.line}: ${r.what}${r.predicate ? ` in ${r.predicate}` : ''}`)
    expect(stray, 'tell the error apart by code or class, or add a named predicate saying which library gives nothing else').toEqual([])
  })

  it('by text only in the predicates allowed, each of which reads text and says which library gives nothing else', () => {
    const readings = textReadings(sources())
    for (const allowed of ALLOWED_TEXT_READERS) {
      const at = readings.filter((r) => r.file.split(path.sep).join('/') === allowed.file && r.predicate === allowed.predicate)
      expect(at.length, `${allowed.predicate} (${allowed.file}) still reads text; otherwise drop it from the list`).toBeGreaterThan(0)
      for (const r of at) expect(r.comment, `${allowed.predicate}'s comment names ${allowed.library}`).toContain(allowed.library)
    }
  })
})
