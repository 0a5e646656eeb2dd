/**
 * Doctor's look at a Google spreadsheet: one `spreadsheets.get` of the title, the time zone, the tool's
 * layout marker and its protected ranges. Nothing is written, so nothing is retried either: a refusal is
 * the answer doctor reports. `doctor --write-test` adds the write test (`write-test.ts`).
 */
import type { sheets_v4 } from '@googleapis/sheets'
import { sheetsApi, type SheetsApiOptions } from './api-client.ts'
import type { SpreadsheetFacts, SpreadsheetProbe } from '../probe.ts'
import { toSheetsError } from './api-errors.ts'
import { LAYOUT_METADATA_KEY } from './layout-state.ts'

export type GoogleProbeOptions = SheetsApiOptions

const PROBE_FIELDS = 'properties(title,timeZone),sheets(properties(title),protectedRanges),developerMetadata'

/** The descriptions layout.ts gives the header and hidden-column protections it adds. */
const TOOL_PROTECTION = 'timeline-sheets: '

export function createGoogleProbe(options: GoogleProbeOptions): SpreadsheetProbe {
  const { spreadsheetId, auth } = options
  const api = sheetsApi(options)
  return {
    kind: 'google',
    principal: auth.principal,
    describe: () => `https://docs.google.com/spreadsheets/d/${spreadsheetId}`,
    // Loaded only when asked for: a plain doctor run reads one request's worth of modules.
    writeTest: async (tabs) => {
      const [{ runWriteTest }, { createGoogleSpreadsheet }] = await Promise.all([import('./write-test.ts'), import('./backend.ts')])
      return runWriteTest({
        spreadsheetId,
        api,
        tabs,
        gzipRequests: options.gzipRequests !== false,
        backend: () =>
          createGoogleSpreadsheet({
            spreadsheetId,
            auth,
            ...(options.rootUrl ? { rootUrl: options.rootUrl } : {}),
            ...(options.transport ? { transport: options.transport } : {}),
            ...(options.gzipRequests === undefined ? {} : { gzipRequests: options.gzipRequests }),
          }),
      })
    },
    async inspect(): Promise<SpreadsheetFacts> {
      let data: sheets_v4.Schema$Spreadsheet
      try {
        data = (await api.spreadsheets.get({ spreadsheetId, fields: PROBE_FIELDS })).data
      } catch (error) {
        throw toSheetsError(error, { spreadsheetId, operation: 'spreadsheets.get', principal: auth.principal, secrets: auth.secrets() })
      }
      const laidOut = (data.developerMetadata ?? []).some((m) => m.metadataKey === LAYOUT_METADATA_KEY)
      const own = (data.sheets ?? []).flatMap((s) => s.protectedRanges ?? []).filter((p) => p.description?.startsWith(TOOL_PROTECTION))
      // proto3 JSON leaves a false `requestingUserCanEdit` out; a viewer may edit none of the tool's ranges.
      const canEdit = own.length === 0 ? undefined : own.every((p) => p.requestingUserCanEdit === true)
      return {
        title: data.properties?.title ?? spreadsheetId,
        timeZone: data.properties?.timeZone ?? undefined,
        laidOut,
        canEdit,
        editEvidence:
          own.length === 0
            ? 'the tool has protected no range yet'
            : canEdit
              ? "Google says it may edit the tool's protected ranges"
              : "Google says it may not edit the tool's protected ranges",
      }
    },
  }
}
