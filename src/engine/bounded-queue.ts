// A FIFO with a fixed capacity. Array.shift is O(n); a moving head keeps take() O(batch).

import { assert } from "./errors.js";

export class BoundedQueue<Item> {
  #items: Item[] = [];
  #head = 0;

  constructor(readonly capacity: number) {
    assert(Number.isSafeInteger(capacity) && capacity > 0, "queue capacity is a positive integer");
  }

  get length(): number {
    return this.#items.length - this.#head;
  }

  get isFull(): boolean {
    return this.length >= this.capacity;
  }

  /** Whether `count` more items fit. */
  hasRoomFor(count: number): boolean {
    return this.length + count <= this.capacity;
  }

  /** The item `offset` places from the front (0 is the front), or undefined past the end. */
  peek(offset: number): Item | undefined {
    return offset < this.length ? this.#items[this.#head + offset] : undefined;
  }

  push(item: Item): void {
    assert(!this.isFull, "push only after checking isFull");
    this.#items.push(item);
  }

  /** Removes and returns up to `countMax` items from the front. */
  take(countMax: number): Item[] {
    const end = Math.min(this.#head + countMax, this.#items.length);
    const taken = this.#items.slice(this.#head, end);
    this.#head = end;
    // Compact once the consumed prefix dominates, so memory stays bounded by the capacity.
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return taken;
  }

  /** Removes and returns everything. */
  drain(): Item[] {
    return this.take(this.length);
  }
}
