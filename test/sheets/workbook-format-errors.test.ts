/**
 * A workbook whose zip this tool can read but not write back fails the write with a workbook error that
 * names the file and says nothing was written, never as an unexpected error (a bug), and leaves the file as
 * it was.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { activitiesTab, allowedTagsTab, syncLogTab } from '../../src/core/columns.ts'
import { TimelineSheetsError } from '../../src/errors.ts'
import { createWorkbookSpreadsheet } from '../../src/sheets/workbook/backend.ts'
import { readZip } from '../../src/sheets/workbook/zip.ts'
import { createWorkbookFixture, type WorkbookFixture } from './workbook-fixture.ts'

const SPECS = [activitiesTab('Activities'), allowedTagsTab(), syncLogTab()]
const END_OF_CENTRAL = 0x06054b50
let fixture: WorkbookFixture | undefined

afterEach(async () => {
  await fixture?.cleanup()
  fixture = undefined
})

/**
 * The same archive with the central record of `name` giving its position in zip64 form (0xFFFFFFFF, the
 * real offset in a zip64 extra field), as some zip libraries write it for any file.
 */
function withZip64Offset(bytes: Buffer, name: string): Buffer {
  const archive = readZip(bytes)
  const centrals = archive.entries.map((entry) => {
    const central = Buffer.from(entry.central)
    if (entry.name !== name) return central
    const nameEnd = 46 + central.readUInt16LE(28)
    const extraEnd = nameEnd + central.readUInt16LE(30)
    const zip64 = Buffer.alloc(12)
    zip64.writeUInt16LE(0x0001, 0)
    zip64.writeUInt16LE(8, 2)
    zip64.writeBigUInt64LE(BigInt(entry.localStart), 4)
    const edited = Buffer.concat([central.subarray(0, extraEnd), zip64, central.subarray(extraEnd)])
    edited.writeUInt16LE(central.readUInt16LE(30) + 12, 30)
    edited.writeUInt32LE(0xffffffff, 42)
    return edited
  })
  const endAt = bytes.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]))
  expect(bytes.readUInt32LE(endAt)).toBe(END_OF_CENTRAL)
  const directoryAt = bytes.readUInt32LE(endAt + 16)
  const directory = Buffer.concat(centrals)
  const end = Buffer.from(bytes.subarray(endAt))
  end.writeUInt32LE(directory.length, 12)
  return Buffer.concat([bytes.subarray(0, directoryAt), directory, end])
}

describe('a workbook this tool can read but not write back', () => {
  it('fails the write as a workbook error naming the file, and the file stays as it was', async () => {
    fixture = await createWorkbookFixture()
    await fixture.spreadsheet.ensureLayout(SPECS, { timeZone: 'UTC' })
    const copied = readZip(await readFile(fixture.file)).entries.find((entry) => entry.name.startsWith('docProps/'))!
    const edited = withZip64Offset(await readFile(fixture.file), copied.name)
    await writeFile(fixture.file, edited)

    const sheet = createWorkbookSpreadsheet({ path: fixture.file })
    const basis = await sheet.read(['Activities'])
    expect(basis.tabs['Activities']!.exists).toBe(true)
    const error = await sheet.write([{ tab: 'Activities', appends: [['DOMAIN\\u1']] }], basis).then(
      () => undefined,
      (failure: unknown) => failure,
    )

    expect(error).toBeInstanceOf(TimelineSheetsError)
    expect(error).toMatchObject({
      code: 'TS_WORKBOOK',
      message: `Cannot write to the workbook ${fixture.file}: the part ${copied.name} is stored in zip64 form, which this tool cannot rewrite`,
      hint: 'Nothing was written. Open the workbook in Excel or LibreOffice and save it once, then run again.',
    })
    expect((await readFile(fixture.file)).equals(edited)).toBe(true)
  })
})
