// The sizes a character's fields, avatars and cards may have (issue 19's contract): shared by the editor's API, card
// import and the tests, so a card is capped exactly where a form is refused.
export const CHARACTER_LIMITS = {
  name: 80,
  description: 2_000,
  tags: 12,
  tag: 32,
  instructions: 20_000,
  firstMessage: 4_000,
  exampleDialogue: 8_000,
  modelId: 200,
  reviewText: 2_000,
  slugMin: 3,
  slugMax: 64,
} as const;

/** An uploaded avatar before resizing. */
export const AVATAR_MAX_BYTES = 5 * 1024 * 1024;
/** The stored avatar's side (square, WebP). */
export const AVATAR_SIDE = 512;
/** A card as JSON, and the card JSON inside a PNG. */
export const CARD_JSON_MAX_BYTES = 1024 * 1024;
/** A card as PNG (the image with the card in its metadata). */
export const CARD_PNG_MAX_BYTES = 8 * 1024 * 1024;
/** Characters one user may own (made or imported): a generous ceiling against scripted floods. */
export const CHARACTERS_PER_USER = 500;
