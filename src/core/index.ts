/** The pure core: time, tags, columns, cells, rows, fingerprints, the three-way planner and guards. No I/O. */
export * from './time.ts'
export * from './tags.ts'
export * from './columns.ts'
export * from './cells.ts'
export * from './fingerprint.ts'
export * from './rows.ts'
export * from './plan.ts'
export * from './guards.ts'
