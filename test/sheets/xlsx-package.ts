/**
 * An .xlsx as its zip entries, for tests that check what a save kept: each
 * entry's local record (header, data, descriptor) as raw bytes, and a small
 * package built from XML text without the backend's own zip writer.
 */
import { readFile } from 'node:fs/promises'
import zlib from 'node:zlib'
import { readZip } from '../../src/sheets/workbook/zip.ts'

/** Each entry's local record, byte for byte as it is in the file. */
export async function zipRecords(file: string): Promise<Map<string, Buffer>> {
  const bytes = await readFile(file)
  const archive = readZip(bytes)
  return new Map(archive.entries.map((entry) => [entry.name, Buffer.from(bytes.subarray(entry.localStart, entry.localEnd))]))
}

/** The uncompressed text of one entry. */
export async function zipText(file: string, name: string): Promise<string> {
  const bytes = await readFile(file)
  const entry = readZip(bytes).entries.find((candidate) => candidate.name === name)
  if (entry === undefined) throw new Error(`${file} has no entry ${name}`)
  const data = bytes.subarray(entry.dataStart, entry.dataEnd)
  return (entry.method === 0 ? Buffer.from(data) : zlib.inflateRawSync(data)).toString('utf8')
}

/** A zip of stored (uncompressed) entries, written here so a fixture does not depend on the code under test. */
export function storedZip(parts: Record<string, string>): Buffer {
  const locals: Buffer[] = []
  const centrals: Buffer[] = []
  let offset = 0
  for (const [name, text] of Object.entries(parts)) {
    const data = Buffer.from(text, 'utf8')
    const nameBytes = Buffer.from(name, 'utf8')
    const crc = zlib.crc32(data)
    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034b50, 0)
    local.writeUInt16LE(20, 4)
    local.writeUInt32LE(crc, 14)
    local.writeUInt32LE(data.length, 18)
    local.writeUInt32LE(data.length, 22)
    local.writeUInt16LE(nameBytes.length, 26)
    const central = Buffer.alloc(46)
    central.writeUInt32LE(0x02014b50, 0)
    central.writeUInt16LE(20, 4)
    central.writeUInt16LE(20, 6)
    central.writeUInt32LE(crc, 16)
    central.writeUInt32LE(data.length, 20)
    central.writeUInt32LE(data.length, 24)
    central.writeUInt16LE(nameBytes.length, 28)
    central.writeUInt32LE(offset, 42)
    locals.push(local, nameBytes, data)
    centrals.push(central, nameBytes)
    offset += 30 + nameBytes.length + data.length
  }
  const directory = Buffer.concat(centrals)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(Object.keys(parts).length, 8)
  end.writeUInt16LE(Object.keys(parts).length, 10)
  end.writeUInt32LE(directory.length, 12)
  end.writeUInt32LE(offset, 16)
  return Buffer.concat([...locals, directory, end])
}

/** The entries two versions of a file share whose bytes differ, among `names`. */
export function changedEntries(before: ReadonlyMap<string, Buffer>, after: ReadonlyMap<string, Buffer>, names: Iterable<string>): string[] {
  const changed: string[] = []
  for (const name of names) {
    const old = before.get(name)
    const now = after.get(name)
    if (old === undefined || now === undefined || !old.equals(now)) changed.push(name)
  }
  return changed
}
