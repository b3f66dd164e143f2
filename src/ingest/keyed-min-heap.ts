/**
 * A binary min-heap of items by a numeric key (items and keys in two arrays, no entry objects):
 * the traces waiting for the event-time watermark, lowest event time first.
 */
export class KeyedMinHeap<T> {
  private items: T[] = []
  private keys: number[] = []

  get size(): number {
    return this.items.length
  }

  push(item: T, key: number): void {
    const { items, keys } = this
    let i = items.length
    items.push(item)
    keys.push(key)
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (keys[parent]! <= key) break
      items[i] = items[parent]!
      keys[i] = keys[parent]!
      i = parent
    }
    items[i] = item
    keys[i] = key
  }

  /** The lowest key, or undefined when empty. */
  peekKey(): number | undefined {
    return this.keys[0]
  }

  /** The item with the lowest key, or undefined when empty. */
  peek(): T | undefined {
    return this.items[0]
  }

  /** Removes and returns the item with the lowest key. */
  pop(): T | undefined {
    const { items, keys } = this
    if (items.length === 0) return undefined
    const top = items[0]
    const lastItem = items.pop()!
    const lastKey = keys.pop()!
    if (items.length > 0) this.siftDown(0, lastItem, lastKey)
    return top
  }

  /** Keeps only the items `keep` accepts (dropping stale entries in one pass). */
  retain(keep: (item: T, key: number) => boolean): void {
    const items: T[] = []
    const keys: number[] = []
    for (let i = 0; i < this.items.length; i++) {
      if (!keep(this.items[i]!, this.keys[i]!)) continue
      items.push(this.items[i]!)
      keys.push(this.keys[i]!)
    }
    this.items = items
    this.keys = keys
    for (let i = (items.length >> 1) - 1; i >= 0; i--) this.siftDown(i, items[i]!, keys[i]!)
  }

  clear(): void {
    this.items = []
    this.keys = []
  }

  private siftDown(start: number, item: T, key: number): void {
    const { items, keys } = this
    const n = items.length
    let i = start
    for (;;) {
      let child = 2 * i + 1
      if (child >= n) break
      if (child + 1 < n && keys[child + 1]! < keys[child]!) child++
      if (keys[child]! >= key) break
      items[i] = items[child]!
      keys[i] = keys[child]!
      i = child
    }
    items[i] = item
    keys[i] = key
  }
}
