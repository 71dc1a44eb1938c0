/** Label-only review (§7.3 Target, §7.6–§7.7 Target): pure parsing and judging, no I/O, no clock. */
export * from './normalise';
export * from './json';
export * from './confirmed';
export * from './answer-review';
export * from './indepth-review';
export * from './payload';
