/**
 * The .xlsx container: a zip archive read from memory, and a new archive made
 * of entries copied byte for byte from the old one plus entries written anew.
 * Copying an entry takes its local record (header, compressed data, data
 * descriptor) and its central directory record as they are, so a part the
 * tool does not change (a manager's tab, a drawing) keeps every byte.
 * Node's zlib does the (de)compression, faster than a zip library's own
 * codec; the container itself is for @zip.js/zip.js to take over, which copies
 * entries as they are (decisions/0029).
 *
 * Longer than most files because reading and writing share the record layouts, which are checked against the
 * format side by side.
 */
import zlib from 'node:zlib'
import { bugError, InternalError } from '../../errors.ts'

const LOCAL_HEADER = 0x04034b50
const CENTRAL_HEADER = 0x02014b50
const END_OF_CENTRAL = 0x06054b50
const ZIP64_END = 0x06064b50
const ZIP64_LOCATOR = 0x07064b50
const DATA_DESCRIPTOR = 0x08074b50
const MAX_32 = 0xffffffff
const MAX_16 = 0xffff
/** General-purpose flag: sizes and CRC follow the data instead of preceding it. */
const FLAG_DESCRIPTOR = 0x0008
/** General-purpose flag: the name is UTF-8. */
const FLAG_UTF8 = 0x0800

/** One entry of an archive that was read. */
export interface ZipEntry {
  name: string
  /** 0 stored, 8 deflated. */
  method: number
  crc: number
  compressedSize: number
  size: number
  /** The entry's local record in the archive: header, then data, then the data descriptor if any. */
  localStart: number
  dataStart: number
  dataEnd: number
  localEnd: number
  /** The central directory record as it was. */
  central: Uint8Array
  /** Whether its central record carries the local offset in a zip64 field (it cannot then be moved as it is). */
  zip64Offset: boolean
}

export interface ZipArchive {
  bytes: Uint8Array
  entries: ZipEntry[]
  byName: Map<string, ZipEntry>
}

/** A malformed archive; the backend turns it into an error naming the file. */
export class ZipFormatError extends InternalError {
  readonly code = 'TS_WORKBOOK'
  readonly convertedBy = 'reading and writing (sheets/workbook/backend.ts): each read, layout and write of the workbook names the file'
}

function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}

/** Reads the central directory of `bytes`; the data stays where it is until an entry is asked for. */
export function readZip(bytes: Uint8Array): ZipArchive {
  const data = view(bytes)
  const end = findEndOfCentral(data)
  if (end < 0) throw new ZipFormatError('it is not a zip archive (no end of central directory)')
  let count = data.getUint16(end + 10, true)
  let directorySize = data.getUint32(end + 12, true)
  let directoryOffset = data.getUint32(end + 16, true)
  if (count === MAX_16 || directorySize === MAX_32 || directoryOffset === MAX_32) {
    const locator = end - 20
    if (locator < 0 || data.getUint32(locator, true) !== ZIP64_LOCATOR) throw new ZipFormatError('its zip64 directory locator is missing')
    const zip64End = toNumber(data.getBigUint64(locator + 8, true))
    if (zip64End + 56 > bytes.byteLength || data.getUint32(zip64End, true) !== ZIP64_END)
      throw new ZipFormatError('its zip64 directory record is missing')
    count = toNumber(data.getBigUint64(zip64End + 32, true))
    directorySize = toNumber(data.getBigUint64(zip64End + 40, true))
    directoryOffset = toNumber(data.getBigUint64(zip64End + 48, true))
  }
  if (directoryOffset + directorySize > bytes.byteLength)
    throw new ZipFormatError('its central directory lies past the end of the file (truncated?)')
  const entries: ZipEntry[] = []
  let at = directoryOffset
  for (let i = 0; i < count; i++) {
    if (at + 46 > bytes.byteLength || data.getUint32(at, true) !== CENTRAL_HEADER)
      throw new ZipFormatError(`central directory record ${i + 1} is damaged`)
    const flags = data.getUint16(at + 8, true)
    const method = data.getUint16(at + 10, true)
    const crc = data.getUint32(at + 16, true)
    let compressedSize = data.getUint32(at + 20, true)
    let size = data.getUint32(at + 24, true)
    const nameLength = data.getUint16(at + 28, true)
    const extraLength = data.getUint16(at + 30, true)
    const commentLength = data.getUint16(at + 32, true)
    let localStart = data.getUint32(at + 42, true)
    const name = new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + nameLength))
    const recordEnd = at + 46 + nameLength + extraLength + commentLength
    let zip64Offset = false
    if (compressedSize === MAX_32 || size === MAX_32 || localStart === MAX_32) {
      const fields = zip64Fields(data, at + 46 + nameLength, extraLength)
      let next = 0
      if (size === MAX_32) size = fields[next++] ?? size
      if (compressedSize === MAX_32) compressedSize = fields[next++] ?? compressedSize
      if (localStart === MAX_32) {
        localStart = fields[next] ?? localStart
        zip64Offset = true
      }
    }
    if (localStart + 30 > bytes.byteLength || data.getUint32(localStart, true) !== LOCAL_HEADER)
      throw new ZipFormatError(`the entry ${name} is damaged`)
    const dataStart = localStart + 30 + data.getUint16(localStart + 26, true) + data.getUint16(localStart + 28, true)
    const dataEnd = dataStart + compressedSize
    if (dataEnd > bytes.byteLength) throw new ZipFormatError(`the entry ${name} runs past the end of the file (truncated?)`)
    let localEnd = dataEnd
    if ((flags & FLAG_DESCRIPTOR) !== 0) {
      const signed = dataEnd + 4 <= bytes.byteLength && data.getUint32(dataEnd, true) === DATA_DESCRIPTOR
      const sizes = size > MAX_32 || compressedSize > MAX_32 ? 16 : 8
      localEnd = dataEnd + (signed ? 4 : 0) + 4 + sizes
    }
    entries.push({
      name,
      method,
      crc,
      compressedSize,
      size,
      localStart,
      dataStart,
      dataEnd,
      localEnd,
      central: bytes.slice(at, recordEnd),
      zip64Offset,
    })
    at = recordEnd
  }
  return { bytes, entries, byName: new Map(entries.map((entry) => [entry.name, entry])) }
}

function findEndOfCentral(data: DataView): number {
  // The record is 22 bytes plus a comment of at most 65,535.
  const last = data.byteLength - 22
  for (let at = last; at >= 0 && at >= last - MAX_16; at--) {
    if (data.getUint32(at, true) === END_OF_CENTRAL) return at
  }
  return -1
}

function zip64Fields(data: DataView, start: number, length: number): number[] {
  for (let at = start; at + 4 <= start + length;) {
    const id = data.getUint16(at, true)
    const size = data.getUint16(at + 2, true)
    if (id === 0x0001) {
      const fields: number[] = []
      for (let field = at + 4; field + 8 <= at + 4 + size; field += 8) fields.push(toNumber(data.getBigUint64(field, true)))
      return fields
    }
    at += 4 + size
  }
  return []
}

function toNumber(value: bigint): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new ZipFormatError('it is larger than this tool can read')
  return Number(value)
}

function compressedData(archive: ZipArchive, entry: ZipEntry): Uint8Array {
  return archive.bytes.subarray(entry.dataStart, entry.dataEnd)
}

function checkMethod(entry: ZipEntry): void {
  if (entry.method !== 0 && entry.method !== 8)
    throw new ZipFormatError(`the part ${entry.name} is compressed with method ${entry.method}, which an .xlsx never uses`)
}

/** A whole (small) entry, uncompressed. */
export function entryBytes(archive: ZipArchive, entry: ZipEntry): Buffer {
  checkMethod(entry)
  const data = compressedData(archive, entry)
  if (entry.method === 0) return Buffer.from(data)
  try {
    return zlib.inflateRawSync(data)
  } catch (error) {
    throw new ZipFormatError(`the part ${entry.name} cannot be decompressed (${(error as Error).message})`)
  }
}

/**
 * How much of a large part is text at a time, in bytes read or characters written. V8 places a string over
 * 128 KB straight in its large-object space, which only a full collection frees: with pieces of 256 KB, every
 * pass over a 100,000-row sheet (67 MB of XML) left its whole text there as garbage until V8 got round to a
 * full collection, and peak memory depended on when it did. At 32 K a piece, even as UTF-16, dies young.
 */
export const PIECE = 1 << 15

/** An entry's bytes, decompressed piece by piece, so a large part never sits in memory whole. */
export async function* entryChunks(archive: ZipArchive, entry: ZipEntry): AsyncGenerator<Uint8Array> {
  checkMethod(entry)
  const data = compressedData(archive, entry)
  if (entry.method === 0) {
    const step = PIECE
    for (let at = 0; at < data.byteLength; at += step) yield data.subarray(at, at + step)
    return
  }
  const inflate = zlib.createInflateRaw({ chunkSize: PIECE })
  inflate.end(data)
  try {
    for await (const chunk of inflate as AsyncIterable<Buffer>) yield chunk
  } catch (error) {
    throw new ZipFormatError(`the part ${entry.name} cannot be decompressed (${(error as Error).message})`)
  } finally {
    inflate.destroy()
  }
}

/** An entry's text, decompressed and decoded piece by piece. */
export async function* entryText(archive: ZipArchive, entry: ZipEntry): AsyncGenerator<string> {
  const decoder = new TextDecoder()
  for await (const chunk of entryChunks(archive, entry)) yield decoder.decode(chunk, { stream: true })
  const rest = decoder.decode()
  if (rest !== '') yield rest
}

/** An entry compressed for the new archive. */
export interface CompressedPart {
  name: string
  crc: number
  size: number
  data: Uint8Array
}

/** Compresses a part given whole. */
export function compressPart(name: string, content: string | Uint8Array): CompressedPart {
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content
  return { name, crc: crc32(bytes, 0), size: bytes.byteLength, data: zlib.deflateRawSync(bytes, { level: COMPRESSION_LEVEL }) }
}

/**
 * Level 2: at 100,000 rows the sheet XML is tens of megabytes; level 4 took twice as long (0.5 s against 0.26 s
 * for 67 MB) for a file 7 % smaller, and levels above it cost seconds. Any level is plain deflate to every reader.
 */
const COMPRESSION_LEVEL = 2

/**
 * Compresses a part written piece by piece: `write` takes text or bytes as it is produced, `finish`
 * returns the compressed part. Only the compressed bytes are kept.
 */
export class PartCompressor {
  readonly name: string
  #crc = 0
  #size = 0
  #chunks: Buffer[] = []
  #pending: string[] = []
  #pendingLength = 0
  #deflate = zlib.createDeflateRaw({ level: COMPRESSION_LEVEL, chunkSize: 1 << 18 })
  #failed: Error | undefined

  constructor(name: string) {
    this.name = name
    this.#deflate.on('data', (chunk: Buffer) => this.#chunks.push(chunk))
    this.#deflate.on('error', (error: Error) => {
      this.#failed = error
    })
  }

  /** Adds text; flushed to the compressor in pieces of about a megabyte. */
  async write(text: string): Promise<void> {
    this.#pending.push(text)
    this.#pendingLength += text.length
    if (this.#pendingLength >= PIECE) await this.#flush()
  }

  async #flush(): Promise<void> {
    if (this.#pending.length === 0) return
    const bytes = Buffer.from(this.#pending.join(''), 'utf8')
    this.#pending = []
    this.#pendingLength = 0
    this.#crc = crc32(bytes, this.#crc)
    this.#size += bytes.byteLength
    if (!this.#deflate.write(bytes)) await new Promise<void>((resolve) => this.#deflate.once('drain', resolve))
    if (this.#failed) throw this.#failed
  }

  async finish(): Promise<CompressedPart> {
    await this.#flush()
    // 'end' (not the end() callback, which only means the input was taken): every compressed byte is out.
    await new Promise<void>((resolve, reject) => {
      this.#deflate.once('error', reject)
      this.#deflate.once('end', resolve)
      this.#deflate.end()
    })
    if (this.#failed) throw this.#failed
    return { name: this.name, crc: this.#crc, size: this.#size, data: Buffer.concat(this.#chunks) }
  }
}

const crcTable = (() => {
  const table = new Uint32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    table[n] = c >>> 0
  }
  return table
})()

/** CRC-32 of `bytes` continuing from `previous`; zlib's own where the running Node has it. */
export function crc32(bytes: Uint8Array, previous: number): number {
  const native = (zlib as { crc32?: (data: Uint8Array, value?: number) => number }).crc32
  if (native !== undefined) return native(bytes, previous)
  let c = ~previous >>> 0
  for (let i = 0; i < bytes.length; i++) c = crcTable[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8)
  return ~c >>> 0
}

/** What goes into a new archive, in order. */
export type ZipItem = { copy: ZipEntry } | { part: CompressedPart }

/** Builds the archive: copied entries keep their bytes; only their position in the file moves. */
export function writeZip(source: ZipArchive | undefined, items: readonly ZipItem[], modified: Date = new Date()): Uint8Array {
  const pieces: Uint8Array[] = []
  const centrals: Uint8Array[] = []
  let offset = 0
  const { time, date } = dosDateTime(modified)
  for (const item of items) {
    if (offset > MAX_32) throw new ZipFormatError('the workbook would be larger than 4 GB, which this tool cannot write')
    if ('copy' in item) {
      const entry = item.copy
      if (source === undefined) throw bugError(`writeZip: copying the entry ${entry.name} needs the archive it comes from`)
      if (entry.zip64Offset) throw new ZipFormatError(`the part ${entry.name} is stored in zip64 form, which this tool cannot rewrite`)
      const local = source.bytes.subarray(entry.localStart, entry.localEnd)
      const central = new Uint8Array(entry.central)
      view(central).setUint32(42, offset, true)
      pieces.push(local)
      centrals.push(central)
      offset += local.byteLength
      continue
    }
    const { name, crc, size, data } = item.part
    if (data.byteLength >= MAX_32 || size >= MAX_32)
      throw new ZipFormatError(`the part ${name} would be larger than 4 GB, which this tool cannot write`)
    const nameBytes = Buffer.from(name, 'utf8')
    const flags = /^[\x20-\x7e]*$/.test(name) ? 0 : FLAG_UTF8
    const entry = { flags, time, date, crc, compressed: data.byteLength, size, nameLength: nameBytes.byteLength }
    const local = new Uint8Array(30 + nameBytes.byteLength)
    const l = view(local)
    l.setUint32(0, LOCAL_HEADER, true)
    writeEntryFields(l, 4, entry)
    l.setUint16(28, 0, true)
    local.set(nameBytes, 30)
    const central = new Uint8Array(46 + nameBytes.byteLength)
    const c = view(central)
    c.setUint32(0, CENTRAL_HEADER, true)
    c.setUint16(4, 20, true)
    writeEntryFields(c, 6, entry)
    c.setUint32(42, offset, true)
    central.set(nameBytes, 46)
    pieces.push(local, data)
    centrals.push(central)
    offset += local.byteLength + data.byteLength
  }
  if (items.length > MAX_16 || offset > MAX_32)
    throw new ZipFormatError('the workbook would need the zip64 format, which this tool cannot write')
  const directoryOffset = offset
  let directorySize = 0
  for (const central of centrals) directorySize += central.byteLength
  const end = new Uint8Array(22)
  const e = view(end)
  e.setUint32(0, END_OF_CENTRAL, true)
  e.setUint16(8, items.length, true)
  e.setUint16(10, items.length, true)
  e.setUint32(12, directorySize, true)
  e.setUint32(16, directoryOffset, true)
  return Buffer.concat([...pieces, ...centrals, end])
}

function dosDateTime(when: Date): { time: number; date: number } {
  const year = Math.min(Math.max(when.getFullYear(), 1980), 2107)
  return {
    time: (when.getHours() << 11) | (when.getMinutes() << 5) | Math.floor(when.getSeconds() / 2),
    date: ((year - 1980) << 9) | ((when.getMonth() + 1) << 5) | when.getDate(),
  }
}

/**
 * The fields a local file header (from byte 4) and its central directory entry (from byte 6) share, in the
 * same order: version needed (2.0), flags, method (deflate), time, date, CRC-32, sizes, name length.
 */
function writeEntryFields(
  v: DataView,
  at: number,
  e: { flags: number; time: number; date: number; crc: number; compressed: number; size: number; nameLength: number },
): void {
  v.setUint16(at, 20, true)
  v.setUint16(at + 2, e.flags, true)
  v.setUint16(at + 4, 8, true)
  v.setUint16(at + 6, e.time, true)
  v.setUint16(at + 8, e.date, true)
  v.setUint32(at + 10, e.crc, true)
  v.setUint32(at + 14, e.compressed, true)
  v.setUint32(at + 18, e.size, true)
  v.setUint16(at + 22, e.nameLength, true)
}
