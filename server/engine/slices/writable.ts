/** A slice as its owner module sees it: the same object, its fields writable (readers get them read-only). */
export type Writable<T> = { -readonly [K in keyof T]: T[K] };
