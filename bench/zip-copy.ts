/**
 * What copying every entry of a 100,000-row workbook raw into a new archive costs: the workbook backend's own
 * container (`src/sheets/workbook/zip.ts`) against a zip library that copies entries without recompressing
 * them (decisions/0029). One process per step, so each peak RSS is its own:
 *
 *   npx node bench/zip-copy.ts make  <file>            # the workbook, written by the backend (ensureLayout + write)
 *   npx node bench/zip-copy.ts read  <file>            # a fresh backend reads its Activities tab back
 *   npx node bench/zip-copy.ts ours  <file>            # readZip + writeZip, every entry copied
 *   npx node bench/zip-copy.ts jszip <file>            # JSZip loadAsync + generateAsync, DEFLATE (reuses deflated data)
 *   npx node bench/zip-copy.ts zipjs <file> <module>   # @zip.js/zip.js ZipWriter.appendZip, from a module path
 *
 * Each copy is read back and its entries' data compared with the source's, byte for byte. Then the two other
 * things the container does, on the largest part (the Activities sheet): inflate it piece by piece, and deflate
 * it again as a new part:
 *
 *   npx node bench/zip-copy.ts inflate-ours|deflate-ours <file>
 *   npx node bench/zip-copy.ts inflate-zipjs|deflate-zipjs <file> <module> [level]
 *
 * And a save as the backend makes one: the sheet deflated anew by Node's zlib (level 2), every other entry
 * copied; zip.js takes the deflated sheet as it is (`passThrough`, with its CRC and size):
 *
 *   npx node bench/zip-copy.ts save-ours <file>
 *   npx node bench/zip-copy.ts save-zipjs <file> <module>
 */
import { readFile } from 'node:fs/promises'
import { activitiesTab, allowedTagsTab } from '../src/core/columns.ts'
import type { CellValue } from '../src/sheets/port.ts'
import { createWorkbookSpreadsheet } from '../src/sheets/workbook/backend.ts'
import { compressPart, entryBytes, entryChunks, readZip, writeZip, type ZipArchive, type ZipEntry } from '../src/sheets/workbook/zip.ts'
import { peakRssMiB } from './lib/emit.ts'

const [mode, file, zipjsModule, level] = process.argv.slice(2)
const ROWS = 100_000
const TAGS = ['Acme Corp, Website, Build', 'Globex, Migration, Analysis', 'Internal, Admin, Email', 'Initech, Support, Tickets']
const NOTES = ['Call with the client about scope', 'Fixed login bug\nDeployed to staging', '0042', '']

/** Rows shaped as the export writes them (bench/backends.ts). */
function activityRow(i: number): CellValue[] {
  const start = (8 * 60 + (i % 40) * 12) / 1440
  const duration = (15 * (1 + (i % 8))) / 1440
  return [
    `user${i % 171}@example.com`,
    46_027 + Math.floor(i / 1100),
    start,
    start + duration,
    duration,
    TAGS[i % TAGS.length]!,
    i % 3 === 0 ? ':billable' : null,
    NOTES[i % NOTES.length] || null,
    false,
    null,
    `tl${i % 171}/${1000 + i}`,
    `fp${(i * 2_654_435_761) % 4_294_967_296}`,
  ]
}

/** The data (still compressed) of every entry, by name. */
function rawData(archive: ZipArchive): Map<string, Uint8Array> {
  return new Map(archive.entries.map((e) => [e.name, archive.bytes.subarray(e.dataStart, e.dataEnd)]))
}

const same = (a: Uint8Array | undefined, b: Uint8Array | undefined) => a !== undefined && b !== undefined && Buffer.from(a).equals(b)

function sameData(source: ZipArchive, copy: Uint8Array): boolean {
  const a = rawData(source)
  const b = rawData(readZip(copy))
  return a.size === b.size && [...a].every(([name, data]) => same(data, b.get(name)))
}

/** The entries whose local header or central record (but for the offset it holds) changed in the copy. */
function recordsChanged(source: ZipArchive, copy: Uint8Array): string[] {
  const out = readZip(copy)
  const central = (record: Uint8Array) => Buffer.concat([record.subarray(0, 42), record.subarray(46)])
  return source.entries
    .filter((e) => {
      const c = out.byName.get(e.name)
      if (!c) return true
      const local = same(source.bytes.subarray(e.localStart, e.dataStart), out.bytes.subarray(c.localStart, c.dataStart))
      return !local || !same(central(e.central), central(c.central))
    })
    .map((e) => e.name)
}

async function copyWith(copy: (bytes: Uint8Array) => Promise<Uint8Array>): Promise<void> {
  const bytes = new Uint8Array(await readFile(file!))
  const before = process.memoryUsage().rss / 1024 / 1024
  const started = performance.now()
  const out = await copy(bytes)
  const ms = Math.round(performance.now() - started)
  const peak = peakRssMiB()
  console.log(
    JSON.stringify({
      mode,
      fileMiB: Math.round((bytes.byteLength / 1024 / 1024) * 10) / 10,
      entries: readZip(bytes).entries.length,
      ms,
      rssBeforeMiB: Math.round(before),
      peakRssMiB: peak,
      outMiB: Math.round((out.byteLength / 1024 / 1024) * 10) / 10,
      dataKept: sameData(readZip(bytes), out),
      recordsChanged: recordsChanged(readZip(bytes), out),
    }),
  )
}

if (mode === 'make') {
  const book = createWorkbookSpreadsheet({ path: file! })
  const started = performance.now()
  await book.ensureLayout([activitiesTab('Activities'), allowedTagsTab()], { timeZone: 'UTC' })
  const basis = await book.read(['Activities'])
  const rows = Array.from({ length: ROWS }, (_, i) => activityRow(i))
  await book.write([{ tab: 'Activities', appends: rows }], basis)
  console.log(JSON.stringify({ mode, rows: ROWS, ms: Math.round(performance.now() - started), peakRssMiB: peakRssMiB() }))
} else if (mode === 'read') {
  const started = performance.now()
  const read = await createWorkbookSpreadsheet({ path: file! }).read(['Activities'])
  const rows = read.tabs['Activities']?.rows.length
  console.log(JSON.stringify({ mode, rows, ms: Math.round(performance.now() - started), peakRssMiB: peakRssMiB() }))
} else if (mode === 'ours') {
  await copyWith(async (bytes) => {
    const source = readZip(bytes)
    return writeZip(
      source,
      source.entries.map((copy) => ({ copy })),
    )
  })
} else if (mode === 'jszip') {
  const { default: JSZip } = await import('jszip')
  await copyWith(async (bytes) => {
    const zip = await JSZip.loadAsync(bytes)
    return zip.generateAsync({ type: 'uint8array', compression: 'DEFLATE' })
  })
} else if (mode === 'zipjs') {
  const zipjs = await import(zipjsModule!)
  zipjs.configure({ useWebWorkers: false })
  await copyWith(async (bytes) => {
    const writer = new zipjs.ZipWriter(new zipjs.Uint8ArrayWriter())
    await writer.appendZip(new zipjs.Uint8ArrayReader(bytes))
    return writer.close()
  })
} else if (mode?.startsWith('inflate-') || mode?.startsWith('deflate-') || mode?.startsWith('save-')) {
  const bytes = new Uint8Array(await readFile(file!))
  const archive = readZip(bytes)
  const largest = archive.entries.reduce((a, b) => (b.size > a.size ? b : a))
  const content = !mode.startsWith('inflate-') ? entryBytes(archive, largest) : undefined
  const before = process.memoryUsage().rss / 1024 / 1024
  const started = performance.now()
  const out = await step(mode, archive, largest, content)
  console.log(
    JSON.stringify({
      mode,
      part: largest.name,
      sizeMiB: Math.round((largest.size / 1024 / 1024) * 10) / 10,
      ms: Math.round(performance.now() - started),
      rssBeforeMiB: Math.round(before),
      peakRssMiB: peakRssMiB(),
      ...out,
    }),
  )
} else {
  throw new Error(`unknown mode ${mode}: make, read, ours, jszip or zipjs`)
}

async function step(mode: string, archive: ZipArchive, entry: ZipEntry, content: Buffer | undefined): Promise<Record<string, unknown>> {
  if (mode === 'inflate-ours') {
    let size = 0
    for await (const chunk of entryChunks(archive, entry)) size += chunk.byteLength
    return { inflatedBytes: size }
  }
  if (mode === 'save-ours') {
    const part = compressPart(entry.name, content!)
    const out = writeZip(
      archive,
      archive.entries.map((copy) => (copy === entry ? { part } : { copy })),
    )
    return {
      outMiB: Math.round((out.byteLength / 1024 / 1024) * 10) / 10,
      readBack: entryBytes(readZip(out), readZip(out).byName.get(entry.name)!).equals(content!),
    }
  }
  if (mode === 'save-zipjs') {
    const zipjs = await import(zipjsModule!)
    zipjs.configure({ useWebWorkers: false })
    const part = compressPart(entry.name, content!)
    const writer = new zipjs.ZipWriter(new zipjs.Uint8ArrayWriter())
    await writer.appendZip(new zipjs.Uint8ArrayReader(archive.bytes), { filter: (e: { filename: string }) => e.filename !== entry.name })
    await writer.add(entry.name, new zipjs.Uint8ArrayReader(part.data), {
      passThrough: true,
      compressionMethod: 8,
      crc32: part.crc,
      uncompressedSize: part.size,
    })
    const out: Uint8Array = await writer.close()
    return {
      outMiB: Math.round((out.byteLength / 1024 / 1024) * 10) / 10,
      readBack: entryBytes(readZip(out), readZip(out).byName.get(entry.name)!).equals(content!),
    }
  }
  if (mode === 'deflate-ours')
    return { compressedMiB: Math.round((compressPart(entry.name, content!).data.byteLength / 1024 / 1024) * 10) / 10 }
  const zipjs = await import(zipjsModule!)
  zipjs.configure({ useWebWorkers: false })
  if (mode === 'inflate-zipjs') {
    const reader = new zipjs.ZipReader(new zipjs.Uint8ArrayReader(archive.bytes))
    const found = (await reader.getEntries()).find((e: { filename: string }) => e.filename === entry.name)
    let size = 0
    await found.getData(new WritableStream<Uint8Array>({ write: (chunk) => void (size += chunk.byteLength) }))
    return { inflatedBytes: size }
  }
  const writer = new zipjs.ZipWriter(new zipjs.Uint8ArrayWriter(), level === undefined ? {} : { level: Number(level) })
  await writer.add(entry.name, new zipjs.Uint8ArrayReader(content))
  const out: Uint8Array = await writer.close()
  return { level: level ?? 'default (6)', compressedMiB: Math.round((out.byteLength / 1024 / 1024) * 10) / 10 }
}
