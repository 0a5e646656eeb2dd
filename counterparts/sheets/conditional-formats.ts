/**
 * Conditional format rules (reference/sheets-api.md §6.3): add, update (replace
 * or move) and delete by index on a sheet's ordered list, which
 * `sheets[].conditionalFormats` returns in order (the first matching rule wins
 * in the UI). Indexes are proto3 integers, so an omitted one is 0 [I].
 */
import { invalidArgument } from './google-errors.ts'
import type { ConditionalFormatRule, SheetData, SpreadsheetData } from './sheet-data.ts'
import { boundsOfGridRange, gridRangeOf } from './sheet-lookup.ts'
import { setKey } from './tx.ts'
import { type Applier, gridBoundsOf, type Json, sheetOrThrow } from './request-support.ts'

const indexOf = (value: unknown): number => (typeof value === 'number' ? value : 0)

/** The rule as stored and echoed: its ranges bounded as sent, sheetId 0 left out; the sheet its first range names. */
function storedRule(ss: SpreadsheetData, rule: ConditionalFormatRule | undefined): { sheet: SheetData; rule: ConditionalFormatRule } {
  const ranges = rule?.ranges ?? []
  if (ranges.length === 0) throw invalidArgument('At least one range must be specified.')
  const sheet = gridBoundsOf(ss, ranges[0]).sheet
  for (const r of ranges) gridBoundsOf(ss, r)
  return {
    sheet,
    rule: {
      ...rule,
      ranges: ranges.map((r) => gridRangeOf(sheet.properties.sheetId, boundsOfGridRange(r))),
    },
  }
}

/** Google's text for an index with no rule (observed: `No conditional format on sheet: <id> at index: <n>`). */
function ruleAt(sheet: SheetData, index: number): ConditionalFormatRule {
  const rule = index >= 0 ? sheet.conditionalFormats[index] : undefined
  if (!rule) throw invalidArgument(`No conditional format on sheet: ${sheet.properties.sheetId} at index: ${index}`)
  return rule
}

/** A reply with proto3's omissions: a 0 index is left out. */
function withIndexes(reply: Json, indexes: Record<string, number>): Json {
  for (const [key, value] of Object.entries(indexes)) if (value !== 0) reply[key] = value
  return reply
}

export const conditionalFormatAppliers: Record<string, Applier> = {
  addConditionalFormatRule(ctx, body) {
    const { sheet, rule } = storedRule(ctx.ss, body.rule as ConditionalFormatRule | undefined)
    const list = [...sheet.conditionalFormats]
    // Past the end is taken as the end [I].
    list.splice(Math.min(indexOf(body.index), list.length), 0, rule)
    setKey(ctx.tx, sheet, 'conditionalFormats', list)
    return undefined
  },
  updateConditionalFormatRule(ctx, body) {
    const index = indexOf(body.index)
    const replacing = body.rule !== undefined && body.rule !== null
    const moving = body.newIndex !== undefined && body.newIndex !== null
    // The request's oneof: exactly one of rule and newIndex [D]; the wording is [I].
    if (replacing === moving) throw invalidArgument('Exactly one of rule or newIndex must be set.')
    if (replacing) {
      const { sheet, rule } = storedRule(ctx.ss, body.rule as ConditionalFormatRule)
      const oldRule = ruleAt(sheet, index)
      setKey(
        ctx.tx,
        sheet,
        'conditionalFormats',
        sheet.conditionalFormats.map((r, i) => (i === index ? rule : r)),
      )
      return {
        updateConditionalFormatRule: withIndexes({ newRule: rule, oldRule }, { newIndex: index }),
      }
    }
    const sheet = sheetOrThrow(ctx.ss, body.sheetId)
    const rule = ruleAt(sheet, index)
    const list = sheet.conditionalFormats.filter((_, i) => i !== index)
    // "The zero-based new index the rule should end up at"; past the end is the end [I].
    const newIndex = Math.min(Math.max(indexOf(body.newIndex), 0), list.length)
    list.splice(newIndex, 0, rule)
    setKey(ctx.tx, sheet, 'conditionalFormats', list)
    return {
      updateConditionalFormatRule: withIndexes({ newRule: rule }, { newIndex, oldIndex: index }),
    }
  },
  deleteConditionalFormatRule(ctx, body) {
    const sheet = sheetOrThrow(ctx.ss, body.sheetId)
    const index = indexOf(body.index)
    const rule = ruleAt(sheet, index)
    setKey(
      ctx.tx,
      sheet,
      'conditionalFormats',
      sheet.conditionalFormats.filter((_, i) => i !== index),
    )
    return { deleteConditionalFormatRule: { rule } }
  },
}
