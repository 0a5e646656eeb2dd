/**
 * The tests' "manager" edits workbooks with exceljs, as a person's program would; it must not damage text
 * in rows it does not touch, or a test would blame the backend for it. Two ways exceljs changes text it
 * saves, fixed where it happens (the import fuzz finds both):
 *
 * - It hands each XML part to JSZip as a string, and JSZip encodes strings to UTF-8 in chunks of
 *   16K characters: an emoji (a surrogate pair) split by a chunk edge is saved as two U+FFFD, in a row
 *   nobody touched. Encoding the whole part here first avoids the split.
 * - Its XML writer silently drops control characters and writes U+FFFE, U+FFFF and lone surrogates as
 *   they are, which makes the file unreadable. Excel's own rule is to write such a character as
 *   `_xHHHH_` (and a literal `_xHHHH_` in text as `_x005F_xHHHH_`), which exceljs's reader already
 *   decodes; the writer is made to follow it.
 *
 * Both are patched once, on load of this module, on exceljs's own classes. (The backend itself writes
 * its XML without exceljs: `src/sheets/workbook/xml-text.ts`.)
 */
import { createRequire } from 'node:module'
import { excelEscapeText } from '../../src/sheets/workbook/xml-text.ts'

const require = createRequire(import.meta.url)

interface ZipWriterLike {
  prototype: { append(data: unknown, options: unknown): void }
}
interface TextXformLike {
  prototype: { render(xmlStream: unknown, model: unknown): void }
}

const { ZipWriter } = require('exceljs/lib/utils/zip-stream.js') as { ZipWriter: ZipWriterLike }
const TextXform = require('exceljs/lib/xlsx/xform/strings/text-xform.js') as TextXformLike

const patched = Symbol.for('timeline-sheets.exceljs-text')
const zipAppend = ZipWriter.prototype.append
const textRender = TextXform.prototype.render
if (!(patched in ZipWriter.prototype)) {
  Object.defineProperty(ZipWriter.prototype, patched, { value: true })
  ZipWriter.prototype.append = function append(this: unknown, data: unknown, options: unknown) {
    return zipAppend.call(this, typeof data === 'string' ? Buffer.from(data, 'utf8') : data, options)
  }
  TextXform.prototype.render = function render(this: unknown, xmlStream: unknown, model: unknown) {
    return textRender.call(this, xmlStream, typeof model === 'string' ? excelEscapeText(model) : model)
  }
}
