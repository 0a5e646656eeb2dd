/**
 * The shapes of the fake's spreadsheet: the data the model operations
 * (tx.ts, cells.ts, grid-shape.ts, metadata-index.ts, …) change and the
 * formula evaluator reads. Types only, so the evaluator depends on the data,
 * not on the operations that change it.
 */
import type { DriveFile } from './drive-version.ts'
import type { ExtendedValue, NumberFormat } from './values.ts'

/** CellFormat as stored; only `numberFormat` is interpreted. */
export type CellFormat = { numberFormat?: NumberFormat } & Record<string, unknown>

/** One stored cell. Cells are replaced, never mutated, so undo can keep the old object. */
export interface CellData {
  userEnteredValue?: ExtendedValue
  userEnteredFormat?: CellFormat
  note?: string
  dataValidation?: unknown
}

export interface DimensionProps {
  hiddenByUser?: boolean
  pixelSize?: number
}

export interface RowData {
  cells: (CellData | undefined)[]
  props?: DimensionProps
  /** Ids of developer metadata located on this row. */
  metadataIds?: number[]
}

export interface ColumnData {
  props?: DimensionProps
  metadataIds?: number[]
}

/** GridRange; `sheetId` 0 may be absent (proto3). */
export interface GridRange {
  sheetId?: number
  startRowIndex?: number
  endRowIndex?: number
  startColumnIndex?: number
  endColumnIndex?: number
}

export interface GridProperties {
  rowCount: number
  columnCount: number
  frozenRowCount?: number
  frozenColumnCount?: number
  hideGridlines?: boolean
}

export interface SheetProperties {
  sheetId: number
  title: string
  index: number
  /** OBJECT sheets hold one chart and have no grid (their gridProperties stay 0 × 0 and are not shown). */
  sheetType: 'GRID' | 'OBJECT'
  gridProperties: GridProperties
  hidden?: boolean
  tabColorStyle?: unknown
  rightToLeft?: boolean
}

export interface ProtectedRange {
  protectedRangeId: number
  range: GridRange
  description?: string
  warningOnly?: boolean
  requestingUserCanEdit?: boolean
  editors?: unknown
}

export interface ConditionalFormatRule {
  ranges: GridRange[]
  booleanRule?: unknown
  gradientRule?: unknown
}

/** A chart overlaid on a grid (`sheets[].charts[]`): as Google echoes it, sheetId 0 left out of its ranges and anchor. */
export interface EmbeddedChart {
  chartId: number
  spec: Record<string, unknown>
  position: { overlayPosition: OverlayPosition }
  border?: unknown
}

export interface OverlayPosition {
  anchorCell: GridCoordinate
  offsetXPixels?: number
  offsetYPixels?: number
  widthPixels: number
  heightPixels: number
}

export interface GridCoordinate {
  sheetId?: number
  rowIndex?: number
  columnIndex?: number
}

export interface SheetData {
  properties: SheetProperties
  rows: (RowData | undefined)[]
  columns: (ColumnData | undefined)[]
  /** Merged areas, bounded, as `sheets[].merges` lists them (sheetId 0 left out). */
  merges: GridRange[]
  protectedRanges: ProtectedRange[]
  conditionalFormats: ConditionalFormatRule[]
  basicFilter: { range: GridRange; sortSpecs?: unknown; filterSpecs?: unknown; criteria?: unknown } | undefined
  /** Charts overlaid on this sheet (their data may come from any sheet). */
  charts: EmbeddedChart[]
  /** Developer metadata located on the sheet itself. */
  metadataIds: number[]
}

export interface SpreadsheetProperties {
  title: string
  locale: string
  timeZone: string
  autoRecalc: string
}

export interface DeveloperMetadataRecord {
  metadataId: number
  metadataKey: string
  metadataValue?: string
  visibility: 'DOCUMENT' | 'PROJECT'
}

/** A Drive sharing role as the Sheets API feels it: `reader` (viewer, commenter) or `writer` (editor, owner). */
export type SharingRole = 'reader' | 'writer'

export interface SpreadsheetData {
  spreadsheetId: string
  properties: SpreadsheetProperties
  /** In index order. */
  sheets: SheetData[]
  /** Every developer metadata by id. Change it only through `putMetadata` / `dropMetadata` / `replaceMetadata`, which keep `metadataIndex` in step. */
  metadata: Map<number, DeveloperMetadataRecord>
  /** Developer metadata located on the spreadsheet. */
  metadataIds: number[]
  /** Lookups by key, key and value, and where each id is attached: no scan of every metadata per filter. */
  metadataIndex: MetadataIndex
  /** Owner identity, listed as editor of protected ranges. */
  ownerEmail: string
  /**
   * Who the file is shared with (token subject → role), as Drive sharing decides: without a role every call
   * is 403, a reader's writes are 403. Absent: every valid token may read and write, as before sharing was
   * modelled.
   */
  sharedWith?: Record<string, SharingRole>
  /** The store's clock, for NOW() and TODAY(). */
  clock: () => number
  /**
   * The Drive file's `version` and `modifiedTime` (epoch ms): "A monotonically increasing version number for the
   * file. This reflects every change made to the file on the server, even those not visible to the user." Moved
   * by `commitTx` when a change is applied; a refused request, rolled back, leaves them. files.get shows them
   * `lagMs` later (`drive-version.ts`).
   */
  drive: DriveFile
}

/** Secondary indexes over `SpreadsheetData.metadata`. */
export interface MetadataIndex {
  byKey: Map<string, Set<number>>
  /** `key \u0000 value` → ids; metadata without a value is under `key \u0000`. */
  byKeyValue: Map<string, Set<number>>
  /** The object each id is attached to; a row or column object moves with its row or column. */
  holders: Map<number, MetadataHolder>
}

/** What a metadata id is attached to. */
export type MetadataHolder =
  | { locationType: 'SPREADSHEET' }
  | { locationType: 'SHEET'; sheet: SheetData }
  | { locationType: 'ROW'; sheet: SheetData; item: RowData }
  | { locationType: 'COLUMN'; sheet: SheetData; item: ColumnData }
