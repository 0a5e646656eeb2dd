/**
 * Protected ranges: addProtectedRange, updateProtectedRange and deleteProtectedRange, and a protected range as
 * spreadsheets.get shows it to its caller. Who may edit what a range covers is `protection-rules.ts`; a
 * whole-sheet protection is one per sheet.
 */
import { invalidArgument } from './google-errors.ts'
import { canEditProtected, type Caller, protectedEdit } from './protection-rules.ts'
import { type Applier, type Ctx, gridBoundsOf, type Json } from './request-support.ts'
import type { GridRange, ProtectedRange, SheetData, SpreadsheetData } from './sheet-data.ts'
import { boundsOfGridRange, gridRangeOf } from './sheet-lookup.ts'
import { maskPaths } from './fields.ts'
import { setKey } from './tx.ts'

/**
 * A protected range as spreadsheets.get shows it to a caller: `requestingUserCanEdit` "True if the user who
 * requested this protected range can edit the protected area" (proto3 leaves a false out); `editors` "is only
 * visible to users with edit access to the protected range and the document".
 */
export function protectedRangeJson(p: ProtectedRange, canEdit: boolean): Json {
  const out: Json = { protectedRangeId: p.protectedRangeId, range: p.range }
  if (p.description) out.description = p.description
  if (p.warningOnly) out.warningOnly = true
  if (canEdit) {
    out.requestingUserCanEdit = true
    if (p.editors !== undefined) out.editors = p.editors
  }
  return out
}

/** Whether `caller` can edit `p` as spreadsheets.get tells it (a viewer edits nothing). */
export function callerCanEdit(ss: SpreadsheetData, p: ProtectedRange, caller: Caller, viewer: boolean): boolean {
  return !viewer && canEditProtected(ss, p, caller)
}

/**
 * The editors a range gets: none with `warningOnly` ("if this field is true, then editors are ignored");
 * otherwise the users asked for, with the caller who protects it and the owner, who are listed whatever the
 * request said (Google's recordings list the caller even when `editors.users` was empty).
 */
function editorsOf(ctx: Ctx, asked: unknown): Json {
  const spec = (asked ?? {}) as Json
  const given = Array.isArray(spec.users) ? spec.users.filter((u): u is string => typeof u === 'string') : []
  const users = [...new Set([...(ctx.caller === undefined ? [] : [ctx.caller]), ctx.ss.ownerEmail, ...given])]
  const out: Json = { users }
  if (Array.isArray(spec.groups) && spec.groups.length > 0) out.groups = spec.groups
  if (spec.domainUsersCanEdit === true) out.domainUsersCanEdit = true
  return out
}

/** "All the editors in the document": the owner and those it is shared with as writers (and the caller). */
function documentEditors(ctx: Ctx): Json {
  const shared = Object.entries(ctx.ss.sharedWith ?? {})
    .filter(([, role]) => role === 'writer')
    .map(([subject]) => subject)
  return { users: [...new Set([ctx.ss.ownerEmail, ...(ctx.caller === undefined ? [] : [ctx.caller]), ...shared])] }
}

function located(ss: SpreadsheetData, protectedRangeId: unknown): { sheet: SheetData; p: ProtectedRange } | undefined {
  for (const sheet of ss.sheets) {
    const p = sheet.protectedRanges.find((x) => x.protectedRangeId === protectedRangeId)
    if (p) return { sheet, p }
  }
  return undefined
}

function wholeSheetTaken(sheet: SheetData, except?: ProtectedRange): boolean {
  return sheet.protectedRanges.some((p) => p !== except && Object.keys(boundsOfGridRange(p.range)).length === 0)
}

/** addProtectedRange, updateProtectedRange and deleteProtectedRange. */
export const protectedRangeAppliers: Record<string, Applier> = {
  addProtectedRange(ctx, body) {
    const spec = (body.protectedRange ?? {}) as Json
    const { sheet, open } = gridBoundsOf(ctx.ss, spec.range as GridRange | undefined)
    const whole = Object.keys(open).length === 0
    if (whole && wholeSheetTaken(sheet)) throw invalidArgument(`Sheet "${sheet.properties.title}" already has sheet protection.`)
    const protectedRangeId = typeof spec.protectedRangeId === 'number' ? spec.protectedRangeId : ctx.store.randomId()
    const range = gridRangeOf(sheet.properties.sheetId, open)
    const stored: ProtectedRange = {
      protectedRangeId,
      range,
      ...(typeof spec.description === 'string' && spec.description ? { description: spec.description } : {}),
      ...(spec.warningOnly === true ? { warningOnly: true } : {}),
      editors: spec.warningOnly === true ? {} : editorsOf(ctx, spec.editors),
    }
    setKey(ctx.tx, sheet, 'protectedRanges', [...sheet.protectedRanges, stored])
    // The reply as recorded: the range, and `editors` empty whatever the range got.
    const reply: Json = { protectedRangeId, range }
    if (stored.description) reply.description = stored.description
    if (stored.warningOnly) reply.warningOnly = true
    reply.requestingUserCanEdit = true
    reply.editors = {}
    return { addProtectedRange: { protectedRange: reply } }
  },
  updateProtectedRange(ctx, body) {
    const spec = (body.protectedRange ?? {}) as Json
    const found = located(ctx.ss, spec.protectedRangeId)
    if (!found) throw invalidArgument(`No protected range with id: ${String(spec.protectedRangeId)}`)
    // Only who may edit a range may change its protection [I: as in the UI].
    if (!canEditProtected(ctx.ss, found.p, ctx.caller)) throw protectedEdit()
    const paths = maskPaths(typeof body.fields === 'string' ? body.fields : '')
    if (paths.length === 0) throw invalidArgument("At least one field must be listed in 'fields'. (Use '*' to indicate all fields.)")
    const all = paths.includes('*')
    const has = (name: string) => all || paths.some((p) => p === name || p.startsWith(`${name}.`))
    const next: ProtectedRange = { ...found.p }
    let sheet = found.sheet
    if (has('range')) {
      const resolved = gridBoundsOf(ctx.ss, spec.range as GridRange | undefined)
      if (Object.keys(resolved.open).length === 0 && wholeSheetTaken(resolved.sheet, found.p))
        throw invalidArgument(`Sheet "${resolved.sheet.properties.title}" already has sheet protection.`)
      sheet = resolved.sheet
      next.range = gridRangeOf(resolved.sheet.properties.sheetId, resolved.open)
    }
    if (has('description')) {
      if (typeof spec.description === 'string' && spec.description) next.description = spec.description
      else delete next.description
    }
    const wasWarning = found.p.warningOnly === true
    if (has('warningOnly')) {
      if (spec.warningOnly === true) next.warningOnly = true
      else delete next.warningOnly
    }
    if (next.warningOnly) {
      next.editors = {}
    } else if (has('editors')) {
      next.editors = editorsOf(ctx, spec.editors)
    } else if (wasWarning) {
      // "if this field is changed from true to false and the editors field is not set (nor included in the field
      // mask), then the editors will be set to all the editors in the document."
      next.editors = documentEditors(ctx)
    }
    if (sheet === found.sheet) {
      setKey(
        ctx.tx,
        sheet,
        'protectedRanges',
        sheet.protectedRanges.map((p) => (p === found.p ? next : p)),
      )
    } else {
      setKey(
        ctx.tx,
        found.sheet,
        'protectedRanges',
        found.sheet.protectedRanges.filter((p) => p !== found.p),
      )
      setKey(ctx.tx, sheet, 'protectedRanges', [...sheet.protectedRanges, next])
    }
    return undefined
  },
  deleteProtectedRange(ctx, body) {
    const found = located(ctx.ss, body.protectedRangeId)
    if (!found) throw invalidArgument(`No protected range with id: ${String(body.protectedRangeId)}`)
    if (!canEditProtected(ctx.ss, found.p, ctx.caller)) throw protectedEdit()
    setKey(
      ctx.tx,
      found.sheet,
      'protectedRanges',
      found.sheet.protectedRanges.filter((p) => p !== found.p),
    )
    return undefined
  },
}
