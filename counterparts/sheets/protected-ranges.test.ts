/**
 * Protected ranges as Google's reference (`ProtectedRange`) and help page describe them, through the real
 * `@googleapis/sheets` client: a range protected by a manager refuses the writes of a caller it does not list,
 * whole (a refused batch applies nothing); `warningOnly` lets everyone edit and ignores editors; the owner
 * edits every range; who may not edit a range sees neither `requestingUserCanEdit` nor its editors.
 */
import { beforeEach, describe, expect, test } from 'vitest'
import { driveVersionOf } from './drive-files.ts'
import { createManager } from './manager.ts'
import { PROTECTED_EDIT_MESSAGE } from './protection-rules.ts'
import type { SheetsStore } from './store.ts'
import { failure, mountSheetsApi, NO_RETRY, SHEETS_ROOT, sheetsClient, testStore } from './test-support.ts'

const MANAGER = 'manager@example.com'
const TOOL = 'static-user@test'

let store: SheetsStore
const { api, newSpreadsheet, put } = mountSheetsApi(() => store)
const manager = sheetsClient(SHEETS_ROOT, 'manager-token')
const owner = sheetsClient(SHEETS_ROOT, 'owner-token')

beforeEach(() => {
  ;({ store } = testStore())
  store.auth.addStaticToken('manager-token', { subject: MANAGER })
  store.auth.addStaticToken('owner-token', { subject: store.options.ownerEmail })
})

/** The manager protects rows 2–3 of Sheet1 (A2:C3), as "Protect range" with no editors chosen. */
async function managerProtects(spreadsheetId: string, extra: Record<string, unknown> = {}): Promise<number> {
  const res = await manager.spreadsheets.batchUpdate({
    spreadsheetId,
    requestBody: {
      requests: [
        {
          addProtectedRange: {
            protectedRange: {
              range: { sheetId: 0, startRowIndex: 1, endRowIndex: 3, startColumnIndex: 0, endColumnIndex: 3 },
              description: 'March approved',
              ...extra,
            },
          },
        },
      ],
    },
  })
  return res.data.replies![0]!.addProtectedRange!.protectedRange!.protectedRangeId!
}

async function grid(spreadsheetId: string): Promise<unknown[][] | undefined> {
  return (await api.spreadsheets.values.get({ spreadsheetId, range: 'Sheet1!A1:D5' })).data.values ?? undefined
}

describe('protected ranges (ProtectedRange, "Protected ranges" help page)', () => {
  test('a range protected without editors lists its creator and the owner; others see no editors and cannot edit', async () => {
    const id = newSpreadsheet()
    await managerProtects(id)
    const asManager = (await manager.spreadsheets.get({ spreadsheetId: id })).data.sheets![0]!.protectedRanges![0]!
    expect(asManager).toMatchObject({ requestingUserCanEdit: true, editors: { users: [MANAGER, store.options.ownerEmail] } })
    const asTool = (await api.spreadsheets.get({ spreadsheetId: id })).data.sheets![0]!.protectedRanges![0]!
    expect(asTool.requestingUserCanEdit).toBeUndefined()
    expect(asTool).not.toHaveProperty('editors')
    expect(asTool.description).toBe('March approved')
  })

  test("a write into it by a caller it does not list is refused with Google's 400 and changes nothing, the Drive version included", async () => {
    const id = newSpreadsheet()
    await put(id, 'Sheet1!A1', [['h'], ['a'], ['b'], ['c']])
    await managerProtects(id)
    const version = driveVersionOf(store, id)
    const refused = await failure(
      put(id, 'Sheet1!A3:B4', [
        ['x', 'y'],
        ['z', 'w'],
      ]),
    )
    expect(refused.status).toBe(400)
    expect(refused.response?.data).toEqual({ error: { code: 400, message: PROTECTED_EDIT_MESSAGE, status: 'INVALID_ARGUMENT' } })
    expect(await grid(id)).toEqual([['h'], ['a'], ['b'], ['c']])
    expect(driveVersionOf(store, id)).toBe(version)
    // Outside the range the same caller writes as before.
    await put(id, 'Sheet1!D2', [['ok']])
    expect((await grid(id))?.[1]).toEqual(['a', '', '', 'ok'])
  })

  test('a values.batchUpdate or batchUpdate with one protected part applies none of its parts', async () => {
    const id = newSpreadsheet()
    await managerProtects(id)
    const values = await failure(
      api.spreadsheets.values.batchUpdate(
        {
          spreadsheetId: id,
          requestBody: {
            valueInputOption: 'RAW',
            data: [
              { range: 'Sheet1!A5', values: [['free']] },
              { range: 'Sheet1!B2', values: [['taken']] },
            ],
          },
        },
        NO_RETRY,
      ),
    )
    expect(values.message).toBe(`Invalid data[1]: ${PROTECTED_EDIT_MESSAGE}`)
    const batch = await failure(
      api.spreadsheets.batchUpdate(
        {
          spreadsheetId: id,
          requestBody: {
            requests: [
              {
                updateCells: {
                  start: { sheetId: 0, rowIndex: 4, columnIndex: 0 },
                  rows: [{ values: [{ userEnteredValue: { stringValue: 'free' } }] }],
                  fields: 'userEnteredValue',
                },
              },
              { repeatCell: { range: { sheetId: 0, startRowIndex: 2, endRowIndex: 3 }, cell: { note: 'n' }, fields: 'note' } },
            ],
          },
        },
        NO_RETRY,
      ),
    )
    expect(batch.message).toBe(`Invalid requests[1].repeatCell: ${PROTECTED_EDIT_MESSAGE}`)
    expect(await grid(id)).toBeUndefined()
  })

  test('rows inside it can be neither deleted, inserted among, nor sorted; rows after it can be added', async () => {
    const id = newSpreadsheet()
    await managerProtects(id)
    const rows = (startIndex: number, endIndex: number) => ({ sheetId: 0, dimension: 'ROWS', startIndex, endIndex })
    for (const request of [
      { deleteDimension: { range: rows(2, 4) } },
      { insertDimension: { range: rows(2, 3) } },
      { sortRange: { range: { sheetId: 0, startRowIndex: 1, endRowIndex: 10 }, sortSpecs: [{ dimensionIndex: 0 }] } },
    ]) {
      const refused = await failure(api.spreadsheets.batchUpdate({ spreadsheetId: id, requestBody: { requests: [request] } }, NO_RETRY))
      expect(refused.message).toBe(`Invalid requests[0].${Object.keys(request)[0]}: ${PROTECTED_EDIT_MESSAGE}`)
    }
    await api.spreadsheets.batchUpdate({ spreadsheetId: id, requestBody: { requests: [{ insertDimension: { range: rows(3, 5) } }] } })
    expect(store.spreadsheets.get(id)!.sheets[0]!.properties.gridProperties.rowCount).toBe(1002)
  })

  test('a tab protected whole by the tool refuses every edit of a caller it does not list, a sort and rows added at its end included', async () => {
    // The Approved tab of decisions/0026: protected whole ({ sheetId } alone), not warningOnly, by the tool's account.
    const id = newSpreadsheet()
    await put(id, 'Sheet1!A1', [['h'], ['b'], ['a']])
    await api.spreadsheets.batchUpdate({
      spreadsheetId: id,
      requestBody: { requests: [{ addProtectedRange: { protectedRange: { range: { sheetId: 0 }, description: 'Approved' } } }] },
    })
    const seen = (await api.spreadsheets.get({ spreadsheetId: id })).data.sheets![0]!.protectedRanges![0]!
    expect(seen).toMatchObject({ range: {}, requestingUserCanEdit: true, editors: { users: [TOOL, store.options.ownerEmail] } })
    expect(seen.warningOnly).toBeUndefined()
    const values = await failure(
      manager.spreadsheets.values.update(
        { spreadsheetId: id, range: 'Sheet1!A2', valueInputOption: 'RAW', requestBody: { values: [['typed']] } },
        NO_RETRY,
      ),
    )
    expect(values.status).toBe(400)
    expect(values.response?.data).toEqual({ error: { code: 400, message: PROTECTED_EDIT_MESSAGE, status: 'INVALID_ARGUMENT' } })
    for (const request of [
      { sortRange: { range: { sheetId: 0, startRowIndex: 1, endRowIndex: 3 }, sortSpecs: [{ dimensionIndex: 0 }] } },
      { appendDimension: { sheetId: 0, dimension: 'ROWS', length: 1 } },
      { insertDimension: { range: { sheetId: 0, dimension: 'ROWS', startIndex: 1000, endIndex: 1001 } } },
      { deleteDimension: { range: { sheetId: 0, dimension: 'ROWS', startIndex: 1, endIndex: 2 } } },
    ]) {
      const refused = await failure(manager.spreadsheets.batchUpdate({ spreadsheetId: id, requestBody: { requests: [request] } }, NO_RETRY))
      expect(refused.message).toBe(`Invalid requests[0].${Object.keys(request)[0]}: ${PROTECTED_EDIT_MESSAGE}`)
    }
    expect(await grid(id)).toEqual([['h'], ['b'], ['a']])
    // The tool that protected it still writes and sorts; so does the owner.
    await api.spreadsheets.batchUpdate({
      spreadsheetId: id,
      requestBody: {
        requests: [{ sortRange: { range: { sheetId: 0, startRowIndex: 1, endRowIndex: 3 }, sortSpecs: [{ dimensionIndex: 0 }] } }],
      },
    })
    await owner.spreadsheets.values.update({
      spreadsheetId: id,
      range: 'Sheet1!B1',
      valueInputOption: 'RAW',
      requestBody: { values: [['owner']] },
    })
    expect(await grid(id)).toEqual([['h', 'owner'], ['a'], ['b']])
  })

  test('the owner edits it, and so does a user it lists as editor', async () => {
    const id = newSpreadsheet()
    await managerProtects(id)
    await owner.spreadsheets.values.update({
      spreadsheetId: id,
      range: 'Sheet1!A2',
      valueInputOption: 'RAW',
      requestBody: { values: [['by owner']] },
    })
    const listed = newSpreadsheet()
    await managerProtects(listed, { editors: { users: [TOOL] } })
    await put(listed, 'Sheet1!A2', [['by tool']])
    expect((await grid(id))?.[1]).toEqual(['by owner'])
    expect((await grid(listed))?.[1]).toEqual(['by tool'])
  })

  test('warningOnly: every user edits, and editors sent with it are ignored', async () => {
    const id = newSpreadsheet()
    await managerProtects(id, { warningOnly: true, editors: { users: [MANAGER] } })
    await put(id, 'Sheet1!A2', [['anyone']])
    const seen = (await api.spreadsheets.get({ spreadsheetId: id })).data.sheets![0]!.protectedRanges![0]!
    expect(seen).toMatchObject({ warningOnly: true, requestingUserCanEdit: true, editors: {} })
  })

  test('warningOnly changed to false without editors in the mask gives it every editor of the document', async () => {
    const id = store.createSpreadsheet({
      title: 'T',
      sharedWith: { [MANAGER]: 'writer', [TOOL]: 'writer', 'viewer@test': 'reader' },
    }).spreadsheetId
    const rangeId = await managerProtects(id, { warningOnly: true })
    await manager.spreadsheets.batchUpdate({
      spreadsheetId: id,
      requestBody: {
        requests: [{ updateProtectedRange: { protectedRange: { protectedRangeId: rangeId, warningOnly: false }, fields: 'warningOnly' } }],
      },
    })
    const seen = (await manager.spreadsheets.get({ spreadsheetId: id })).data.sheets![0]!.protectedRanges![0]!
    expect(seen.warningOnly).toBeUndefined()
    expect(seen.editors).toEqual({ users: [store.options.ownerEmail, MANAGER, TOOL] })
    await put(id, 'Sheet1!A2', [['still an editor']])
    expect((await grid(id))?.[1]).toEqual(['still an editor'])
  })

  test('who cannot edit a range cannot change or remove its protection either', async () => {
    const id = newSpreadsheet()
    const rangeId = await managerProtects(id)
    for (const request of [
      { deleteProtectedRange: { protectedRangeId: rangeId } },
      { updateProtectedRange: { protectedRange: { protectedRangeId: rangeId, editors: { users: [TOOL] } }, fields: 'editors' } },
    ]) {
      const refused = await failure(api.spreadsheets.batchUpdate({ spreadsheetId: id, requestBody: { requests: [request] } }, NO_RETRY))
      expect(refused.message).toBe(`Invalid requests[0].${Object.keys(request)[0]}: ${PROTECTED_EDIT_MESSAGE}`)
    }
    await manager.spreadsheets.batchUpdate({
      spreadsheetId: id,
      requestBody: { requests: [{ deleteProtectedRange: { protectedRangeId: rangeId } }] },
    })
    await put(id, 'Sheet1!A2', [['free again']])
  })

  test('a manager acting as an account is held to the ranges too; without one it acts as the owner', async () => {
    const id = newSpreadsheet()
    const tool = createManager(store, { as: TOOL })
    createManager(store, { as: MANAGER }).protectRange(id, 'Sheet1', 'A2:C3', { description: 'March approved' })
    expect(() => tool.editCell(id, 'Sheet1', 'B2', 'x')).toThrow(PROTECTED_EDIT_MESSAGE)
    tool.editCell(id, 'Sheet1', 'D2', 'beside it')
    createManager(store).editCell(id, 'Sheet1', 'B2', 'owner')
    expect(createManager(store).readTab(id, 'Sheet1')).toEqual([[], ['', 'owner', '', 'beside it']])
  })
})
