/**
 * Protected ranges: addProtectedRange and deleteProtectedRange, and a
 * protected range as spreadsheets.get shows it (the caller, as owner, can
 * always edit). A whole-sheet protection is one per sheet.
 */
import { invalidArgument } from './google-errors.ts'
import { type Applier, gridBoundsOf, type Json } from './request-support.ts'
import type { GridRange, SheetData } from './sheet-data.ts'
import { boundsOfGridRange, gridRangeOf } from './sheet-lookup.ts'
import { setKey } from './tx.ts'

/** A protected range as spreadsheets.get shows it. */
export function protectedRangeJson(p: SheetData['protectedRanges'][number]): Json {
  const out: Json = { protectedRangeId: p.protectedRangeId, range: p.range }
  if (p.description) out.description = p.description
  if (p.warningOnly) out.warningOnly = true
  out.requestingUserCanEdit = true
  if (p.editors !== undefined) out.editors = p.editors
  return out
}

/** addProtectedRange and deleteProtectedRange. */
export const protectedRangeAppliers: Record<string, Applier> = {
  addProtectedRange(ctx, body) {
    const spec = (body.protectedRange ?? {}) as Json
    const { sheet, open } = gridBoundsOf(ctx.ss, spec.range as GridRange | undefined)
    const whole = Object.keys(open).length === 0
    if (whole && sheet.protectedRanges.some((p) => Object.keys(boundsOfGridRange(p.range)).length === 0)) {
      throw invalidArgument(`Sheet "${sheet.properties.title}" already has sheet protection.`)
    }
    const protectedRangeId = typeof spec.protectedRangeId === 'number' ? spec.protectedRangeId : ctx.store.randomId()
    const range = gridRangeOf(sheet.properties.sheetId, open)
    const stored = {
      protectedRangeId,
      range,
      ...(typeof spec.description === 'string' && spec.description ? { description: spec.description } : {}),
      ...(spec.warningOnly === true ? { warningOnly: true } : {}),
      requestingUserCanEdit: true,
      editors: spec.warningOnly === true ? {} : { users: [ctx.ss.ownerEmail] },
    }
    setKey(ctx.tx, sheet, 'protectedRanges', [...sheet.protectedRanges, stored])
    const reply: Json = { protectedRangeId, range }
    if (stored.description) reply.description = stored.description
    if (stored.warningOnly) reply.warningOnly = true
    reply.requestingUserCanEdit = true
    reply.editors = {}
    return { addProtectedRange: { protectedRange: reply } }
  },
  deleteProtectedRange(ctx, body) {
    for (const sheet of ctx.ss.sheets) {
      const kept = sheet.protectedRanges.filter((p) => p.protectedRangeId !== body.protectedRangeId)
      if (kept.length !== sheet.protectedRanges.length) {
        setKey(ctx.tx, sheet, 'protectedRanges', kept)
        return undefined
      }
    }
    throw invalidArgument(`No protected range with id: ${String(body.protectedRangeId)}`)
  },
}
