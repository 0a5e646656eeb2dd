/**
 * What the Google backend keeps between runs (`exportHints`/`importHints`): tab ids, the layout's row formats,
 * header names, and the tabs it keeps row marks on. Each part is read on its own: a part this version does not
 * understand costs a request, never the other parts.
 */
import { z } from 'zod'
import type { RowFormats } from './column-formats.ts'
import type { MarkedTab } from './row-marks.ts'

/** The backend's memory that hints carry. */
export interface HintedMemory {
  sheetIds: Map<string, number>
  rowFormats: Map<string, RowFormats>
  headersSeen: Map<string, (string | null)[]>
  markedTabs: Map<string, MarkedTab>
}

const columnFormatSchema = z
  .object({
    numberFormat: z.object({ type: z.string(), pattern: z.string().optional() }).strict().optional(),
    wrapStrategy: z.literal('WRAP').optional(),
    dataValidation: z.record(z.string(), z.unknown()).optional(),
  })
  .strict()
const hintsSchema = z.object({
  sheetIds: z.record(z.string(), z.int().min(0)),
  rowFormats: z.record(z.string(), z.record(z.string(), columnFormatSchema)).optional(),
  headers: z.record(z.string(), z.array(z.string().nullable())).optional(),
  rowMarks: z.record(z.string(), z.object({ sheetId: z.int().min(0), base: z.int().min(1), count: z.int().min(0) }).strict()).optional(),
})

export function hintsOf(memory: HintedMemory): Record<string, unknown> {
  return {
    sheetIds: Object.fromEntries(memory.sheetIds),
    rowFormats: Object.fromEntries(memory.rowFormats),
    headers: Object.fromEntries(memory.headersSeen),
    rowMarks: Object.fromEntries(memory.markedTabs),
  }
}

/** Takes each part of `hints` the memory does not hold yet; true when it took tab ids (not confirmed until Google shows them). */
export function takeHints(memory: HintedMemory, hints: Record<string, unknown>): boolean {
  const part = (name: string): unknown => (hints as Record<string, unknown> | undefined)?.[name]
  let tookIds = false
  const ids = hintsSchema.shape.sheetIds.safeParse(part('sheetIds'))
  if (ids.success && memory.sheetIds.size === 0) {
    for (const [title, id] of Object.entries(ids.data)) memory.sheetIds.set(title, id)
    tookIds = memory.sheetIds.size > 0
  }
  const formats = hintsSchema.shape.rowFormats.safeParse(part('rowFormats'))
  if (formats.success && memory.rowFormats.size === 0)
    for (const [title, byColumn] of Object.entries(formats.data ?? {})) memory.rowFormats.set(title, byColumn as RowFormats)
  const headers = hintsSchema.shape.headers.safeParse(part('headers'))
  if (headers.success && memory.headersSeen.size === 0)
    for (const [title, names] of Object.entries(headers.data ?? {})) memory.headersSeen.set(title, names)
  const marks = hintsSchema.shape.rowMarks.safeParse(part('rowMarks'))
  if (marks.success && memory.markedTabs.size === 0)
    for (const [title, marked] of Object.entries(marks.data ?? {})) memory.markedTabs.set(title, marked)
  return tookIds
}
