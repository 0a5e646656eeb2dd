/**
 * Developer-metadata bookkeeping in the model: the records, the index by key
 * and by key and value, and where each record is attached. Row and column
 * metadata sit on the row/column object, so they move with it for free; a
 * lookup finds the object's current position instead of scanning the grid.
 */
import type {
  ColumnData,
  DeveloperMetadataRecord,
  MetadataHolder,
  MetadataIndex,
  RowData,
  SheetData,
  SpreadsheetData,
} from './sheet-data.ts'
import type { Dimension } from './sheet-lookup.ts'
import { setKey, type Tx } from './tx.ts'

/** An empty metadata index. */
export function emptyMetadataIndex(): MetadataIndex {
  return { byKey: new Map(), byKeyValue: new Map(), holders: new Map() }
}

/** Where each row/column-located metadata id sits now (found by position, since it moves with rows). */
export interface MetadataLocation {
  locationType: 'SPREADSHEET' | 'SHEET' | 'ROW' | 'COLUMN'
  sheetId?: number
  index?: number
}

/** Finds every metadata's current location in one pass. */
export function locateMetadata(ss: SpreadsheetData): Map<number, MetadataLocation> {
  const out = new Map<number, MetadataLocation>()
  for (const id of ss.metadataIds) out.set(id, { locationType: 'SPREADSHEET' })
  for (const sheet of ss.sheets) {
    const sheetId = sheet.properties.sheetId
    for (const id of sheet.metadataIds) out.set(id, { locationType: 'SHEET', sheetId })
    sheet.rows.forEach((row, index) => {
      for (const id of row?.metadataIds ?? []) out.set(id, { locationType: 'ROW', sheetId, index })
    })
    sheet.columns.forEach((column, index) => {
      for (const id of column?.metadataIds ?? []) out.set(id, { locationType: 'COLUMN', sheetId, index })
    })
  }
  return out
}

// Positions of row and column objects, per list, rebuilt only when a lookup finds the list moved.
const positions = new WeakMap<readonly unknown[], Map<unknown, number>>()

function positionOf(list: readonly unknown[], item: unknown): number | undefined {
  let known = positions.get(list)
  const cached = known?.get(item)
  if (cached !== undefined && list[cached] === item) return cached
  known = new Map()
  for (let i = 0; i < list.length; i++) if (list[i] !== undefined) known.set(list[i], i)
  positions.set(list, known)
  return known.get(item)
}

/** Where one metadata id sits now; undefined when it does not exist. One lookup, not a scan of the spreadsheet. */
export function locateMetadataId(ss: SpreadsheetData, id: number): MetadataLocation | undefined {
  const holder = ss.metadataIndex.holders.get(id)
  if (!holder || !ss.metadata.has(id)) return undefined
  if (holder.locationType === 'SPREADSHEET') return { locationType: 'SPREADSHEET' }
  const sheetId = holder.sheet.properties.sheetId
  if (holder.locationType === 'SHEET') return { locationType: 'SHEET', sheetId }
  const index = positionOf(holder.locationType === 'ROW' ? holder.sheet.rows : holder.sheet.columns, holder.item)
  return index === undefined ? undefined : { locationType: holder.locationType, sheetId, index }
}

function keyValue(key: string, value: string | undefined): string {
  return `${key}\u0000${value ?? ''}`
}

function addTo(map: Map<string, Set<number>>, key: string, id: number): void {
  const set = map.get(key)
  if (set) set.add(id)
  else map.set(key, new Set([id]))
}

function removeFrom(map: Map<string, Set<number>>, key: string, id: number): void {
  const set = map.get(key)
  if (!set) return
  set.delete(id)
  if (set.size === 0) map.delete(key)
}

function index(ss: SpreadsheetData, record: DeveloperMetadataRecord): void {
  addTo(ss.metadataIndex.byKey, record.metadataKey, record.metadataId)
  addTo(ss.metadataIndex.byKeyValue, keyValue(record.metadataKey, record.metadataValue), record.metadataId)
}

function unindex(ss: SpreadsheetData, record: DeveloperMetadataRecord): void {
  removeFrom(ss.metadataIndex.byKey, record.metadataKey, record.metadataId)
  removeFrom(ss.metadataIndex.byKeyValue, keyValue(record.metadataKey, record.metadataValue), record.metadataId)
}

/** Ids that may match a lookup: by key and value, by key, or every id when the lookup names neither. */
export function metadataCandidates(ss: SpreadsheetData, key: string | undefined, value: string | undefined): Iterable<number> {
  if (key === undefined) return ss.metadata.keys()
  if (value !== undefined) return ss.metadataIndex.byKeyValue.get(keyValue(key, value)) ?? []
  return ss.metadataIndex.byKey.get(key) ?? []
}

/** Stores a new metadata record attached where `where` says (undoable). */
export function putMetadata(
  tx: Tx,
  ss: SpreadsheetData,
  record: DeveloperMetadataRecord,
  where:
    | { locationType: 'SPREADSHEET' }
    | { locationType: 'SHEET'; sheet: SheetData }
    | { locationType: 'ROW' | 'COLUMN'; sheet: SheetData; index: number },
): void {
  const id = record.metadataId
  let holder: MetadataHolder
  if (where.locationType === 'SPREADSHEET') {
    setKey(tx, ss, 'metadataIds', ss.metadataIds.concat(id))
    holder = where
  } else if (where.locationType === 'SHEET') {
    setKey(tx, where.sheet, 'metadataIds', where.sheet.metadataIds.concat(id))
    holder = where
  } else {
    const item = attachMetadata(tx, where.sheet, where.locationType === 'ROW' ? 'ROWS' : 'COLUMNS', where.index, id)
    holder =
      where.locationType === 'ROW'
        ? { locationType: 'ROW', sheet: where.sheet, item: item as RowData }
        : { locationType: 'COLUMN', sheet: where.sheet, item: item as ColumnData }
  }
  ss.metadata.set(id, record)
  ss.metadataIndex.holders.set(id, holder)
  index(ss, record)
  tx.undo.push(() => {
    unindex(ss, record)
    ss.metadata.delete(id)
    ss.metadataIndex.holders.delete(id)
  })
}

/** Deletes a metadata record and detaches it from its holder (undoable). */
export function dropMetadata(tx: Tx, ss: SpreadsheetData, id: number): void {
  const record = ss.metadata.get(id)
  const holder = ss.metadataIndex.holders.get(id)
  if (!record || !holder) return
  const owner: { metadataIds?: number[] } =
    holder.locationType === 'SPREADSHEET' ? ss : holder.locationType === 'SHEET' ? holder.sheet : holder.item
  if (owner.metadataIds?.includes(id))
    setKey(
      tx,
      owner,
      'metadataIds',
      owner.metadataIds.filter((x) => x !== id),
    )
  deleteMetadataRecord(tx, ss, id)
}

/** Replaces a record's key, value or visibility, keeping the index in step (undoable). */
export function replaceMetadata(tx: Tx, ss: SpreadsheetData, next: DeveloperMetadataRecord): void {
  const old = ss.metadata.get(next.metadataId)
  if (!old) return
  unindex(ss, old)
  ss.metadata.set(next.metadataId, next)
  index(ss, next)
  tx.undo.push(() => {
    unindex(ss, next)
    ss.metadata.set(old.metadataId, old)
    index(ss, old)
  })
}

/** Attaches a metadata id to row/column `index`, creating the row/column object if needed; returns that object. */
export function attachMetadata(tx: Tx, sheet: SheetData, dimension: Dimension, index: number, id: number): RowData | ColumnData {
  const list = dimension === 'ROWS' ? sheet.rows : sheet.columns
  let item: { metadataIds?: number[] } | undefined = list[index]
  if (!item) {
    item = dimension === 'ROWS' ? ({ cells: [] } as RowData) : ({} as ColumnData)
    if (index >= list.length) {
      const old = list.length
      ;(list as unknown[])[index] = item
      tx.undo.push(() => {
        list.length = old
      })
    } else setKey(tx, list as unknown[], index, item)
  }
  setKey(tx, item, 'metadataIds', (item.metadataIds ?? []).concat(id))
  return item as RowData | ColumnData
}

/** Drops a record whose row or column is already gone (undoable): the id list went with it, so only the record and the index remain. */
export function deleteMetadataRecord(tx: Tx, ss: SpreadsheetData, id: number): void {
  const record = ss.metadata.get(id)
  const holder = ss.metadataIndex.holders.get(id)
  if (!record || !holder) return
  unindex(ss, record)
  ss.metadata.delete(id)
  ss.metadataIndex.holders.delete(id)
  tx.undo.push(() => {
    ss.metadata.set(id, record)
    ss.metadataIndex.holders.set(id, holder)
    index(ss, record)
  })
}
