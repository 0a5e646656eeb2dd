import { describeSpreadsheetContract } from '../contract/spreadsheet-contract.ts'
import { createWorkbookFixture } from './workbook-fixture.ts'

describeSpreadsheetContract('workbook (.xlsx in a temp folder)', () => createWorkbookFixture())
