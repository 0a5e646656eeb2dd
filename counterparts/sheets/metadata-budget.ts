/**
 * Google's storage limit for developer metadata (guide "Read & write developer
 * metadata", section "Metadata storage limits"): the characters of every
 * `metadataKey` and `metadataValue` are counted, up to 30,000 for what sits on
 * the spreadsheet and 30,000 for what sits on each sheet (sheet-, row- and
 * column-located alike). A batch that would pass a limit is refused whole, as
 * any invalid batch is: 400 INVALID_ARGUMENT, nothing of it applied.
 */
import type { SpreadsheetData } from './sheet-data.ts'

/** The documented limits, in characters. */
export interface MetadataLimits {
  spreadsheet: number
  sheet: number
}

export const GOOGLE_METADATA_LIMITS: MetadataLimits = { spreadsheet: 30_000, sheet: 30_000 }

/** Characters held per scope: `'spreadsheet'` or a sheet id. */
export type MetadataUsage = Map<'spreadsheet' | number, number>

/** Characters of developer metadata each scope holds now. */
export function metadataUsage(ss: SpreadsheetData): MetadataUsage {
  const out: MetadataUsage = new Map()
  for (const [id, holder] of ss.metadataIndex.holders) {
    const record = ss.metadata.get(id)
    if (!record) continue
    const scope = holder.locationType === 'SPREADSHEET' ? 'spreadsheet' : holder.sheet.properties.sheetId
    out.set(scope, (out.get(scope) ?? 0) + metadataChars(record))
  }
  return out
}

/** What one metadata counts against its scope's limit. */
export function metadataChars(record: { metadataKey: string; metadataValue?: string }): number {
  return record.metadataKey.length + (record.metadataValue?.length ?? 0)
}

/**
 * The first scope a batch took over its limit, or undefined. A scope already
 * over (limits lowered, data from before) is refused only if the batch added to it.
 */
export function overBudget(
  before: MetadataUsage,
  after: MetadataUsage,
  limits: MetadataLimits,
): { scope: 'spreadsheet' | number; chars: number; limit: number } | undefined {
  for (const [scope, chars] of after) {
    const limit = scope === 'spreadsheet' ? limits.spreadsheet : limits.sheet
    if (chars > limit && chars > (before.get(scope) ?? 0)) return { scope, chars, limit }
  }
  return undefined
}

/** The refusal's text (Google's wording is not public; the shape is that of every invalid batch request). */
export function overBudgetMessage(over: { scope: 'spreadsheet' | number; chars: number; limit: number }): string {
  const where = over.scope === 'spreadsheet' ? 'the spreadsheet' : `sheet ${over.scope}`
  return `The developer metadata on ${where} would take ${over.chars} characters, more than the limit of ${over.limit} characters.`
}
