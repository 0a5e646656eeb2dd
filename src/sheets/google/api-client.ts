/** The googleapis Sheets client for one spreadsheet, as the backend and doctor's probe both build it. */
import { sheets, type sheets_v4 } from '@googleapis/sheets'
import { TimelineSheetsError } from '../../errors.ts'
import { asFetch, createTransport, type Transport } from '../../http/transport.ts'
import type { GoogleSignIn } from './auth.ts'
import { gzipRequestBodies } from './gzip-requests.ts'

export interface SheetsApiOptions {
  spreadsheetId: string
  auth: GoogleSignIn
  /** API root; tests point it at the fake. @default 'https://sheets.googleapis.com/' */
  rootUrl?: string
  transport?: Transport
  /** Send request bodies of 1 KB and more gzip-compressed (gzip-requests.ts). @default true */
  gzipRequests?: boolean
}

/** Refuses an id that cannot be one (a pasted URL) before any request, then builds the client. */
export function sheetsApi(options: SheetsApiOptions): sheets_v4.Sheets {
  if (!/^[A-Za-z0-9_-]+$/.test(options.spreadsheetId)) {
    throw new TimelineSheetsError('TS_CONFIG_INVALID', `"${options.spreadsheetId}" is not a Google spreadsheet id`, {
      hint: 'Use the part of the spreadsheet URL between /d/ and /edit.',
    })
  }
  const transport = options.transport ?? createTransport()
  return sheets({
    version: 'v4',
    auth: options.auth.client,
    ...(options.rootUrl ? { rootUrl: options.rootUrl } : {}),
    // Our retry policy is the only one: gaxios would retry GET/PUT three times
    // within two seconds and never POST.
    retry: false,
    // The transport's limits are the only ones, so a timeout says which it was.
    fetchImplementation: asFetch(options.gzipRequests === false ? transport : gzipRequestBodies(transport)),
  })
}
