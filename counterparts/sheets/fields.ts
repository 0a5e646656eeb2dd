/**
 * Field masks (`fields=` on any method, `fields` inside batchUpdate requests):
 * dot, slash and paren forms (§2.3, §6.1). Pure.
 */

/** A parsed mask: `true` selects the whole subtree. */
export type MaskTree = Map<string, MaskTree | true>

function addPath(tree: MaskTree, path: readonly string[]): void {
  const [head, ...rest] = path
  if (head === undefined || head === '') return
  if (rest.length === 0) {
    tree.set(head, true)
    return
  }
  let child = tree.get(head)
  if (child === true) return
  if (child === undefined) {
    child = new Map()
    tree.set(head, child)
  }
  addPath(child, rest)
}

/** Parses `a.b,c(d,e/f)` into a tree. `*` is kept as a key meaning "everything here". */
export function parseMask(mask: string): MaskTree {
  const tree: MaskTree = new Map()
  const walk = (text: string, prefix: readonly string[]) => {
    let depth = 0
    let start = 0
    const parts: string[] = []
    for (let i = 0; i < text.length; i++) {
      const ch = text[i]
      if (ch === '(') depth++
      else if (ch === ')') depth--
      else if (ch === ',' && depth === 0) {
        parts.push(text.slice(start, i))
        start = i + 1
      }
    }
    parts.push(text.slice(start))
    for (const raw of parts) {
      const part = raw.trim()
      if (part === '') continue
      const open = part.indexOf('(')
      if (open >= 0 && part.endsWith(')')) {
        const path = [...prefix, ...part.slice(0, open).split(/[./]/)]
        walk(part.slice(open + 1, -1), path)
      } else {
        addPath(tree, [...prefix, ...part.split(/[./]/)])
      }
    }
  }
  walk(mask, [])
  return tree
}

/** Flattens a mask to dotted paths (`userEnteredFormat.numberFormat`). */
export function maskPaths(mask: string): string[] {
  const out: string[] = []
  const walk = (tree: MaskTree, prefix: string) => {
    for (const [key, child] of tree) {
      const path = prefix ? `${prefix}.${key}` : key
      if (child === true) out.push(path)
      else walk(child, path)
    }
  }
  walk(parseMask(mask), '')
  return out
}

/**
 * Keeps only the selected parts of a response. Selected parents that exist
 * stay even when nothing under them survives (`{"sheets":[{"properties":{}}]}`).
 */
export function applyMask(value: unknown, tree: MaskTree | true): unknown {
  if (tree === true || tree.has('*')) return value
  if (Array.isArray(value)) return value.map((item) => applyMask(item, tree))
  if (value === null || typeof value !== 'object') return value
  const out: Record<string, unknown> = {}
  for (const [key, child] of tree) {
    const v = (value as Record<string, unknown>)[key]
    if (v !== undefined) out[key] = applyMask(v, child)
  }
  return out
}

/** A schema of known field names: `true` = a leaf or a subtree the fake does not check. */
export type FieldSchema = { [key: string]: FieldSchema | true }

/** The first path of `tree` that the schema does not know, dotted; undefined when all are known. */
export function unknownPath(tree: MaskTree, schema: FieldSchema, prefix = ''): string | undefined {
  for (const [key, child] of tree) {
    const path = prefix ? `${prefix}.${key}` : key
    if (key === '*') continue
    const known = schema[key]
    if (known === undefined) return path
    if (child !== true && known !== true) {
      const bad = unknownPath(child, known, path)
      if (bad) return bad
    }
  }
  return undefined
}

const DIMENSION_PROPERTIES: FieldSchema = {
  hiddenByFilter: true,
  hiddenByUser: true,
  pixelSize: true,
  developerMetadata: true,
  dataSourceColumnReference: true,
}

/** The Spreadsheet resource, as deep as the fake checks masks. */
export const SPREADSHEET_SCHEMA: FieldSchema = {
  spreadsheetId: true,
  properties: {
    title: true,
    locale: true,
    autoRecalc: true,
    timeZone: true,
    defaultFormat: true,
    iterativeCalculationSettings: true,
    spreadsheetTheme: true,
    importFunctionsExternalUrlAccessAllowed: true,
  },
  sheets: {
    properties: {
      sheetId: true,
      title: true,
      index: true,
      sheetType: true,
      gridProperties: {
        rowCount: true,
        columnCount: true,
        frozenRowCount: true,
        frozenColumnCount: true,
        hideGridlines: true,
        rowGroupControlAfter: true,
        columnGroupControlAfter: true,
      },
      hidden: true,
      tabColor: true,
      tabColorStyle: true,
      rightToLeft: true,
      dataSourceSheetProperties: true,
    },
    data: {
      startRow: true,
      startColumn: true,
      rowData: {
        values: {
          userEnteredValue: true,
          effectiveValue: true,
          formattedValue: true,
          userEnteredFormat: true,
          effectiveFormat: true,
          hyperlink: true,
          note: true,
          textFormatRuns: true,
          dataValidation: true,
          pivotTable: true,
          dataSourceTable: true,
          dataSourceFormula: true,
          chipRuns: true,
        },
      },
      rowMetadata: DIMENSION_PROPERTIES,
      columnMetadata: DIMENSION_PROPERTIES,
    },
    merges: true,
    conditionalFormats: true,
    filterViews: true,
    protectedRanges: true,
    basicFilter: true,
    charts: true,
    bandedRanges: true,
    developerMetadata: true,
    rowGroups: true,
    columnGroups: true,
    slicers: true,
    tables: true,
  },
  namedRanges: true,
  spreadsheetUrl: true,
  developerMetadata: true,
  dataSources: true,
  dataSourceSchedules: true,
}
