/**
 * Opens the spreadsheet a target names. The Google backend is imported only
 * when a target asks for it, so a workbook-only run never loads googleapis.
 */
import { TimelineSheetsError } from '../errors.ts'
import type { Spreadsheet } from './port.ts'
import { createWorkbookSpreadsheet, type WorkbookLogEvent } from './workbook/backend.ts'
import type { WorkbookFileSystem } from './workbook/file.ts'

/** Where a target's spreadsheet lives. */
export type SpreadsheetTarget =
  | { kind: 'workbook'; path: string; protect?: boolean }
  /** Other fields (rootUrl, pace, retry…) go to `createGoogleSpreadsheet` as they are. */
  | { kind: 'google'; spreadsheetId: string; [option: string]: unknown }

/** The Google backend module as this file needs it; typed loosely so it compiles without that module. */
export interface GoogleBackendModule {
  createGoogleSpreadsheet(options: { spreadsheetId: string; [option: string]: unknown }): Spreadsheet
}

export interface OpenSpreadsheetDeps {
  workbookLog?: (event: WorkbookLogEvent) => void
  workbookFileSystem?: WorkbookFileSystem
  /** Merged into the Google options: `auth` (a GoogleSignIn), `log`… */
  google?: Record<string, unknown>
  /** @default imports ./google/backend.ts */
  loadGoogleBackend?: () => Promise<GoogleBackendModule>
}

// A variable specifier: the type checker does not follow it, Node resolves it next to this file.
const GOOGLE_BACKEND = './google/backend.ts'

/** The backend for `target`. */
export async function openSpreadsheet(target: SpreadsheetTarget, deps: OpenSpreadsheetDeps = {}): Promise<Spreadsheet> {
  if (target.kind === 'workbook') {
    return createWorkbookSpreadsheet({
      path: target.path,
      ...(target.protect === undefined ? {} : { protect: target.protect }),
      ...(deps.workbookLog === undefined ? {} : { log: deps.workbookLog }),
      ...(deps.workbookFileSystem === undefined ? {} : { fileSystem: deps.workbookFileSystem }),
    })
  }
  const load = deps.loadGoogleBackend ?? (() => import(GOOGLE_BACKEND) as Promise<GoogleBackendModule>)
  let backend: GoogleBackendModule
  try {
    backend = await load()
  } catch (error) {
    throw new TimelineSheetsError('TS_INTERNAL', `The Google Sheets backend could not be loaded for spreadsheet ${target.spreadsheetId}`, {
      hint: 'Reinstall timeline-sheets (npm ci), or use a local workbook target meanwhile.',
      cause: error,
    })
  }
  const { kind: _kind, ...options } = target
  return backend.createGoogleSpreadsheet({ ...deps.google, ...options })
}
