/**
 * The state of a metadata-server counterpart: the project, the service account attached to the "instance" (or
 * none), who mints its access tokens, the requests it saw and the faults to answer with. Passed to
 * `createMetadataHandler`; never module state.
 */

/** A token as the metadata server hands it out. */
export interface MintedToken {
  accessToken: string
  /** Seconds. */
  expiresIn: number
}

/**
 * Mints an access token for the attached account with these scopes. The Sheets fake's `store.auth.issueToken`
 * fits, so the fake accepts what the metadata server hands out.
 */
export type TokenMinter = (email: string, scopes: string[]) => MintedToken

export interface AttachedServiceAccount {
  email: string
  /**
   * The scopes a token carries when the request names none (`?scopes=`). On Compute Engine these are the VM's
   * access scopes. @default ['https://www.googleapis.com/auth/cloud-platform']
   */
  scopes?: string[]
  /**
   * Whether a request's `?scopes=` decides the token's scopes, as google-auth-library's Compute client expects
   * when it sends them. `false` keeps `scopes` whatever is asked, as access scopes fixed on a VM would.
   * @default true
   */
  honoursRequestedScopes?: boolean
}

export interface MetadataStoreOptions {
  /** @default 'timeline-sheets-fake' */
  projectId?: string
  /** @default 100000000001 */
  numericProjectId?: number
  /** `null`: no service account is attached (the token and email paths answer 404). */
  serviceAccount: AttachedServiceAccount | null
  mint: TokenMinter
}

/** A request as the counterpart received it, for assertions. */
export interface MetadataRequestRecord {
  path: string
  query: string
  flavor: string | null
  status: number
}

/** An answer to give instead of the real one, for requests whose path ends with `pathEnd`. */
export interface MetadataFault {
  pathEnd: string
  status: number
  /** How many requests it answers. @default 1 */
  times?: number
  body?: string
}

export interface MetadataStore {
  readonly projectId: string
  readonly numericProjectId: number
  serviceAccount: AttachedServiceAccount | null
  readonly mint: TokenMinter
  /** Requests received, oldest first. */
  requests(): readonly MetadataRequestRecord[]
  record(entry: MetadataRequestRecord): void
  /** Answers the next matching request(s) with a fault. */
  fail(fault: MetadataFault): void
  /** The fault for this path, if one is due (spends it). */
  takeFault(path: string): { status: number; body: string | undefined } | undefined
  /** Access tokens handed out, oldest first. */
  issued(): readonly string[]
  noteIssued(token: string): void
}

export function createMetadataStore(options: MetadataStoreOptions): MetadataStore {
  const records: MetadataRequestRecord[] = []
  const faults: (MetadataFault & { times: number })[] = []
  const issued: string[] = []
  return {
    projectId: options.projectId ?? 'timeline-sheets-fake',
    numericProjectId: options.numericProjectId ?? 100000000001,
    serviceAccount: options.serviceAccount,
    mint: options.mint,
    requests: () => records,
    record: (entry) => void records.push(entry),
    fail: (fault) => void faults.push({ ...fault, times: fault.times ?? 1 }),
    takeFault(path) {
      const at = faults.findIndex((f) => path.endsWith(f.pathEnd) && f.times > 0)
      if (at < 0) return undefined
      const fault = faults[at]!
      fault.times -= 1
      if (fault.times === 0) faults.splice(at, 1)
      return { status: fault.status, body: fault.body }
    },
    issued: () => issued,
    noteIssued: (token) => void issued.push(token),
  }
}
