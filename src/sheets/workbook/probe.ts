/**
 * Doctor's look at a workbook: the file readable and an .xlsx, and the file and its folder writable (a save
 * replaces the file through a new one beside it). Opens nothing for writing.
 */
import { constants } from 'node:fs'
import { access, open, stat } from 'node:fs/promises'
import path from 'node:path'
import { TimelineSheetsError } from '../../errors.ts'
import { fileAccessError } from '../../state/file-access.ts'
import type { SpreadsheetFacts, SpreadsheetProbe } from '../probe.ts'

const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04])

export function createWorkbookProbe(file: string): SpreadsheetProbe {
  return {
    kind: 'workbook',
    principal: undefined,
    describe: () => file,
    async inspect(): Promise<SpreadsheetFacts> {
      const folder = path.dirname(file)
      const exists = await stat(file).then(
        (s) => s.isFile(),
        () => false,
      )
      try {
        if (exists) {
          await assertXlsx(file)
          await access(file, constants.R_OK | constants.W_OK)
        }
        await access(folder, constants.W_OK | constants.X_OK)
      } catch (error) {
        throw fileAccessError(error, { what: 'the workbook', file, action: exists ? 'write' : 'use' }) ?? workbookError(file, error)
      }
      return {
        title: path.basename(file),
        timeZone: undefined,
        laidOut: exists,
        canEdit: true,
        editEvidence: exists
          ? 'the file and its folder are writable'
          : 'not there yet; its folder is writable, so the first export makes it',
      }
    },
  }
}

async function assertXlsx(file: string): Promise<void> {
  const handle = await open(file, 'r')
  try {
    const head = Buffer.alloc(4)
    const { bytesRead } = await handle.read(head, 0, 4, 0)
    if (bytesRead < 4 || !head.equals(ZIP_MAGIC)) {
      throw new TimelineSheetsError('TS_WORKBOOK', `${file} is not an .xlsx workbook (no zip signature)`, {
        hint: 'Point the target at an .xlsx file, or move this file aside so the next export makes a new workbook.',
      })
    }
  } finally {
    await handle.close()
  }
}

function workbookError(file: string, error: unknown): TimelineSheetsError {
  if (error instanceof TimelineSheetsError) return error
  const reason = (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error))
  return new TimelineSheetsError('TS_WORKBOOK', `Cannot use the workbook ${file} (${reason})`, {
    hint: 'Check that the path in "spreadsheet.path" names a file in a folder that exists.',
  })
}
