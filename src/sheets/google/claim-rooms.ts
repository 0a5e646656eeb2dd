/**
 * How much room for claims a write may take on each sheet of a spreadsheet. It starts at
 * `CLAIM_CHARS_PER_SHEET`; when Google refuses claims for want of metadata room, the row anchors an earlier
 * version kept on every row are removed first (nothing reads them now), and after that the room is halved,
 * said once per sheet, down to one claim. With no room for one, the write stops with what to do.
 */
import type { sheets_v4 } from '@googleapis/sheets'
import { TimelineSheetsError } from '../../errors.ts'
import { CLAIM_CHARS_PER_SHEET, claimReserve, deleteClaims, LEGACY_ANCHOR_KEYS } from './row-claims.ts'

export interface ClaimRoomDeps {
  spreadsheetId: string
  search(dataFilters: sheets_v4.Schema$DataFilter[]): Promise<sheets_v4.Schema$SearchDeveloperMetadataResponse>
  deleteMetadata(requests: sheets_v4.Schema$Request[], tab: string): Promise<void>
  log?: (event: { type: 'metadata-room'; tab: string; chars: number } | { type: 'legacy-anchors-removed'; count: number }) => void
}

export interface ClaimRooms {
  /** Characters of claims a write may keep on this sheet at once. */
  room(sheetId: number): number
  /** Google refused claims of `chars` characters on this sheet. */
  refused(tab: string, sheetId: number, chars: number): Promise<void>
}

export function createClaimRooms(deps: ClaimRoomDeps): ClaimRooms {
  // Where Google found less room than `CLAIM_CHARS_PER_SHEET`, by sheet id.
  const claimRooms = new Map<number, number>()
  let legacyLooked = false
  const refused = async (tab: string, sheetId: number, chars: number): Promise<void> => {
    // Row anchors an earlier version kept on every row fill the budget, and nothing reads them any more.
    if (!legacyLooked) {
      legacyLooked = true
      const found = await deps.search(LEGACY_ANCHOR_KEYS.map((metadataKey) => ({ developerMetadataLookup: { metadataKey } })))
      const matched = found?.matchedDeveloperMetadata ?? []
      const keys = LEGACY_ANCHOR_KEYS.filter((key) => matched.some((m) => m.developerMetadata?.metadataKey === key))
      if (keys.length > 0) {
        await deps.deleteMetadata(
          keys.map((metadataKey) => deleteClaims({ developerMetadataLookup: { metadataKey } })),
          tab,
        )
        deps.log?.({ type: 'legacy-anchors-removed', count: matched.length })
        return
      }
    }
    const oneClaim = claimReserve(sheetId)
    if (chars <= oneClaim) {
      throw new TimelineSheetsError(
        'TS_SHEETS_API',
        `Google has no room left for developer metadata on the tab "${tab}" of spreadsheet ${deps.spreadsheetId}: rows already in the tab cannot be updated safely without it, so those this run had still to update were left as they are`,
        {
          hint:
            'Each sheet holds at most 30,000 characters of developer metadata, shared by every add-on and script; the tool needs a few hundred for the rows it updates, and none between runs. ' +
            'Remove metadata you no longer need (`timeline-sheets doctor --write-test` shows how much is free), then run again.',
        },
      )
    }
    const room = Math.max(oneClaim, Math.floor(chars / 2))
    if (!claimRooms.has(sheetId)) deps.log?.({ type: 'metadata-room', tab, chars: room })
    claimRooms.set(sheetId, room)
  }
  return { room: (sheetId) => claimRooms.get(sheetId) ?? CLAIM_CHARS_PER_SHEET, refused }
}
