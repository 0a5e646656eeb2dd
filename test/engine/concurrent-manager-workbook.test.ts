// The concurrent-manager check on the workbook backend (concurrent-manager-suite.ts says what it proves).
import { managerWorkingDuringRuns } from './concurrent-manager-suite.ts'

managerWorkingDuringRuns('workbook')
