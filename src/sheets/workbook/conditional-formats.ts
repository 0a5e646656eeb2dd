/**
 * The tool's conditional formats on a worksheet: rows coloured by the status word (`STATUS_RULES`, the
 * vocabulary both backends share) and a Delete column whose tick stands out and whose FALSE does not
 * show. They are recognised by their formulas, so a later layout replaces them (including the rules of
 * earlier versions, which searched for "error" and "conflict") and leaves a manager's own rules alone.
 */
import { TICK_TEXTS } from '../../core/cells.ts'
import { STATUS_RULES, statusRuleFormula } from '../../core/status.ts'
import type { SheetParts } from './sheet-parts.ts'
import { columnName } from './sheet-xml.ts'
import type { Styles } from './styles.ts'
import { elementContent, startTagAttributes, topLevel } from './xml-parts.ts'
import { decodeXml, escapeXml, parseAttributes } from './xml-text.ts'

/** Excel's last row; a conditional format is one range, so it spans the whole sheet at no cost. */
export const LAST_SHEET_ROW = 1_048_576

/** A ticked Delete: bold dark red on light red, so a row about to be deleted is seen before the run. */
export const TICK_FORMAT = { font: '9C0006', bold: true, fill: 'FFC7CE' } as const

/** Where the rules go: the status column and the Delete column (0-based), and the last tool column. */
export interface ConditionalColumns {
  status: number | undefined
  checkbox: number | undefined
  lastColumn: number
}

// Formulas this module writes (and the rules of earlier versions): how the tool knows its own rules again.
const OURS = [
  /^ISNUMBER\(SEARCH\("(error|conflict)",\$[A-Z]+2\)\)$/,
  /^LEFT\(\$[A-Z]+1,\d+\)="[A-Za-z]+"$/,
  /^AND\(\$[A-Z]+1=FALSE,LEFT\(\$[A-Z]+1,\d+\)="[A-Za-z]+"\)$/,
  /^\$[A-Z]+1=FALSE$/,
  /^OR\((LOWER\(TRIM\(\$[A-Z]+1\)\)="[^"]*",?)+\)$/,
]

interface Rule {
  formula: string
  dxf: number
}

/** Sets the tool's rules on a tab; true when they changed. Ranges start at the header, which meets no rule. */
export function applyConditionalFormats(parts: SheetParts, columns: ConditionalColumns, styles: Styles): boolean {
  const groups: Array<{ sqref: string; rules: Rule[] }> = []
  if (columns.checkbox !== undefined)
    groups.push({ sqref: columnRange(columns.checkbox, columns.checkbox), rules: deleteRules(columns, styles) })
  if (columns.status !== undefined) {
    const rules = STATUS_RULES.map((rule) => ({
      formula: statusRuleFormula(rule.word, columns.status!).slice(1),
      dxf: styles.differentialFormat({ fill: rule.fill, font: rule.font }),
    }))
    groups.push({ sqref: columnRange(0, columns.lastColumn), rules })
  }
  const all = parts.all('conditionalFormatting')
  const others = all.filter((formatting) => !isOurs(formatting))
  const current = all.filter(isOurs)
  // After the manager's own rules, so their priorities keep their order.
  let priority = others.reduce((max, formatting) => Math.max(max, ...priorities(formatting)), 0)
  const desired = groups.map(
    (group) =>
      `<conditionalFormatting sqref="${group.sqref}">${group.rules
        .map(
          (rule) =>
            `<cfRule type="expression" dxfId="${rule.dxf}" priority="${++priority}"><formula>${escapeXml(rule.formula)}</formula></cfRule>`,
        )
        .join('')}</conditionalFormatting>`,
  )
  if (current.join('') === desired.join('')) return false
  parts.setAll('conditionalFormatting', [...others, ...desired])
  return true
}

/**
 * A tick (whatever a manager may type for one, `TICK_TEXTS`) in bold red; a FALSE in the font colour of
 * the fill its row has (on that fill), so only ticks show. Excel never applies a number format to TRUE/FALSE, so a
 * colour is the one way to hide it there (LibreOffice also hides it through the column's number format).
 */
function deleteRules(columns: ConditionalColumns, styles: Styles): Rule[] {
  const cell = `$${columnName(columns.checkbox!)}1`
  const tick: Rule = {
    formula: `OR(${TICK_TEXTS.map((text) => `LOWER(TRIM(${cell}))="${text}"`).join(',')})`,
    dxf: styles.differentialFormat(TICK_FORMAT),
  }
  const hidden: Rule[] =
    columns.status === undefined
      ? []
      : STATUS_RULES.map((rule) => ({
          formula: `AND(${cell}=FALSE,${statusRuleFormula(rule.word, columns.status!).slice(1)})`,
          // The fill too: LibreOffice applies only the first range's rules to a cell two ranges cover.
          dxf: styles.differentialFormat({ font: rule.fill, fill: rule.fill }),
        }))
  return [tick, ...hidden, { formula: `${cell}=FALSE`, dxf: styles.differentialFormat({ font: 'FFFFFF' }) }]
}

function columnRange(first: number, last: number): string {
  return `${columnName(first)}1:${columnName(last)}${LAST_SHEET_ROW}`
}

function rulesOf(formatting: string): Array<{ formula: string; attributes: Map<string, string> }> {
  return topLevel(elementContent(formatting))
    .filter((piece) => piece.name === 'cfRule')
    .map((rule) => {
      const formula = topLevel(elementContent(rule.xml)).find((child) => child.name === 'formula')
      return {
        formula: formula === undefined ? '' : decodeXml(elementContent(formula.xml)),
        attributes: parseAttributes(startTagAttributes(rule.xml)),
      }
    })
}

function isOurs(formatting: string): boolean {
  const rules = rulesOf(formatting)
  return rules.length > 0 && rules.every((rule) => rule.attributes.get('type') === 'expression' && OURS.some((re) => re.test(rule.formula)))
}

function priorities(formatting: string): number[] {
  return rulesOf(formatting).map((rule) => Number(rule.attributes.get('priority') ?? 0))
}
