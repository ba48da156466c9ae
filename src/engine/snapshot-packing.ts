// Snapshots packed for storage and for the trip from the snapshot worker to the engine's thread.
// A snapshot's text is large (91 MB at a million resting orders) and repetitive: compressed with
// brotli it is some 20 times smaller, so the worker compresses it on its own thread and hands the
// bytes over as a transferred buffer (no copy of a 91 MB string on the event loop), and a store
// writes a few MB instead of 91 (snapshot-chunks in the SQLite store, in small steps).

import { brotliCompressSync, brotliDecompressSync, constants } from "node:zlib";
import type { PackedStateSnapshot, StateSnapshot } from "./store.js";

/** Brotli quality: 5 packs a snapshot ~20:1 at ~60 MB/s (bench:snapshot), as the journal archive does. */
export const snapshotBrotliQuality = 5;

/** The state's text as UTF-8, brotli-compressed, in a buffer of its own (so it can be transferred). */
export function packEncodedState(encodedState: string): Uint8Array {
  const text = Buffer.from(encodedState, "utf8");
  const packed = brotliCompressSync(text, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: snapshotBrotliQuality,
      [constants.BROTLI_PARAM_SIZE_HINT]: text.length,
    },
  });
  // A Buffer may be a view into a larger (pooled) ArrayBuffer; a transfer hands over the whole one.
  if (packed.byteOffset === 0 && packed.byteLength === packed.buffer.byteLength) {
    return new Uint8Array(packed.buffer, 0, packed.byteLength);
  }
  return new Uint8Array(packed);
}

/** The UTF-8 bytes of the state's text back from a packed snapshot. */
export function unpackStateBytes(packed: Uint8Array): Buffer {
  return brotliDecompressSync(packed);
}

export function isPackedSnapshot(
  snapshot: StateSnapshot | PackedStateSnapshot,
): snapshot is PackedStateSnapshot {
  return "packedState" in snapshot;
}

/** A packed snapshot as the text snapshot recovery reads (its hash is checked there). */
export function unpackSnapshot(snapshot: StateSnapshot | PackedStateSnapshot): StateSnapshot {
  if (!isPackedSnapshot(snapshot)) return snapshot;
  return {
    sequence: snapshot.sequence,
    nowMs: snapshot.nowMs,
    state: unpackStateBytes(snapshot.packedState).toString("utf8"),
    hash: snapshot.hash,
    chainHash: snapshot.chainHash ?? null,
  };
}
