/**
 * Counts the elements code reads from an array, for tests that pin how much
 * work an operation does instead of how long it takes: a busy machine changes
 * the time an operation takes, never the elements it reads. A scan that should
 * not be there multiplies the count by the size of the data, whatever the
 * machine.
 */

export interface ElementReads<T> {
  /** Stands in for the array: the same elements, every indexed read counted. */
  readonly array: T[]
  /** Indexed reads since the start or the last `reset`. */
  reads(): number
  reset(): void
}

/** Wraps `target`; put `array` where the code under test finds the original. */
export function countElementReads<T>(target: T[]): ElementReads<T> {
  let reads = 0
  const array = new Proxy(target, {
    get(object, key, receiver) {
      // Index keys are canonical numeric strings; `length`, methods and symbols are not elements.
      if (typeof key === 'string') {
        const first = key.charCodeAt(0)
        if (first >= 48 && first <= 57) reads++
      }
      return Reflect.get(object, key, receiver) as unknown
    },
  })
  return {
    array,
    reads: () => reads,
    reset: () => void (reads = 0),
  }
}

/** Counts the `get` calls on `map`, through a counting `get` put on the map itself. */
export function countGets<K, V>(map: Map<K, V>): { reads(): number; reset(): void } {
  let reads = 0
  const get = map.get.bind(map)
  map.get = (key: K) => {
    reads++
    return get(key)
  }
  return {
    reads: () => reads,
    reset: () => void (reads = 0),
  }
}
