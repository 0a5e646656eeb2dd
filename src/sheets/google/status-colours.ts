/**
 * The colours a tab with a status column gets: one conditional-format rule per status word of the core
 * (`core/status.ts`), colouring a row whose status cell starts with that word. A manager's own rules on the tab
 * stay: the tool's are told apart by their formula, and they are deleted and added again only when what is there
 * differs from what is wanted (colours compared as Google rounds them), so a repeated layout writes nothing. Pure.
 */
import type { sheets_v4 } from '@googleapis/sheets'
import { STATUS_RULES, statusRuleFormula, type StatusRule } from '../../core/status.ts'
import { TimelineSheetsError } from '../../errors.ts'
import type { TabSpec } from '../port.ts'
import { sameRange, type SheetState } from './layout-state.ts'

/** A `RRGGBB` colour as Google's 0–1 components. */
export function googleColor(hex: string): sheets_v4.Schema$Color {
  const part = (i: number) => Math.round((parseInt(hex.slice(i, i + 2), 16) / 255) * 1000) / 1000
  return { red: part(0), green: part(2), blue: part(4) }
}

/**
 * The conditional-format rule colouring the rows whose status cell starts with the rule's word. Its range
 * is whole rows from the header down (`statusRange`), so rows the tool inserts under the header stay in it.
 */
export function statusFormatRule(
  rule: StatusRule,
  statusColumn: number,
  range: sheets_v4.Schema$GridRange,
): sheets_v4.Schema$ConditionalFormatRule {
  const formula = statusRuleFormula(rule.word, statusColumn, (range.startRowIndex ?? 0) + 1)
  return {
    ranges: [range],
    booleanRule: {
      condition: { type: 'CUSTOM_FORMULA', values: [{ userEnteredValue: formula }] },
      format: { backgroundColor: googleColor(rule.fill), textFormat: { foregroundColor: googleColor(rule.font) } },
    },
  }
}

/**
 * Ours: the word rules (`=LEFT($K1,8)="Conflict"`), and the `SEARCH` rules that spreadsheets laid out by earlier
 * versions still hold, so a layout replaces those too.
 */
const OUR_STATUS_FORMULA = /^=LEFT\(\$[A-Z]+\d+,\d+\)="[A-Za-z]+"$|^=ISNUMBER\(SEARCH\("(conflict|error)",\$[A-Z]+2\)\)$/

function isOurStatusRule(rule: sheets_v4.Schema$ConditionalFormatRule): boolean {
  const condition = rule.booleanRule?.condition
  const formula = condition?.values?.[0]?.userEnteredValue ?? ''
  return condition?.type === 'CUSTOM_FORMULA' && OUR_STATUS_FORMULA.test(formula)
}

/** The parts of a rule that say what it does, to compare what is there with what is wanted (colours as Google rounds them). */
function ruleEssence(rule: sheets_v4.Schema$ConditionalFormatRule): string {
  const b = rule.booleanRule
  const color = (c: sheets_v4.Schema$Color | undefined) => [c?.red, c?.green, c?.blue].map((v) => Math.round((v ?? 0) * 100))
  const format = b?.format
  return JSON.stringify([
    b?.condition?.values?.[0]?.userEnteredValue,
    color(format?.backgroundColor),
    color(format?.textFormat?.foregroundColor),
  ])
}

/** From the header row down: insertions at row 2 (the first rows of an empty tab) fall inside it, never before it. */
function statusRange(sheetId: number, width: number): sheets_v4.Schema$GridRange {
  return { sheetId, startColumnIndex: 0, endColumnIndex: width }
}

/**
 * The requests that give a tab with a `statusColumn` the core's colour rules, none when they are there already.
 * `positions` are the tab's columns after the layout (header names → 0-based index), `width` its column count.
 */
export function statusColourRequests(
  spec: TabSpec,
  positions: ReadonlyMap<string, number>,
  sheetId: number,
  width: number,
  existing: SheetState | undefined,
): sheets_v4.Schema$Request[] {
  if (spec.statusColumn === undefined) return []
  const statusIndex = positions.get(spec.statusColumn)
  if (statusIndex === undefined) {
    throw new TimelineSheetsError(
      'TS_SHEET_LAYOUT',
      `The status column "${spec.statusColumn}" of the tab "${spec.title}" is not one of its columns`,
      {
        hint: 'This is a bug in the tab specification: statusColumn must name a column of the same tab.',
      },
    )
  }
  const requests: sheets_v4.Schema$Request[] = []
  // The core's rules (status.ts), one per word; ours are recognised by their formula, a manager's own rules stay.
  const ours = (existing?.conditionalFormats ?? []).map((rule, i) => ({ rule, i })).filter(({ rule }) => isOurStatusRule(rule))
  const wanted = STATUS_RULES.map((rule) => statusFormatRule(rule, statusIndex, statusRange(sheetId, width)))
  const rangesMatch = ours.every(({ rule }) => rule.ranges?.length === 1 && sameRange(rule.ranges[0]!, statusRange(sheetId, width)))
  const current = ours.map(({ rule }) => ruleEssence(rule))
  if (!(rangesMatch && current.length === wanted.length && wanted.every((rule, i) => ruleEssence(rule) === current[i]))) {
    for (const { i } of [...ours].reverse()) requests.push({ deleteConditionalFormatRule: { sheetId, index: i } })
    wanted.forEach((rule, i) => requests.push({ addConditionalFormatRule: { index: i, rule } }))
  }
  return requests
}
