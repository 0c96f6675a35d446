// Shapes shared by web augmentation: search results (the citations of a response) and scraped pages.

/** One search result; also the wire shape of a citation in `web_search_citations`. */
export interface SearchResult {
  title: string;
  url: string;
  /** A snippet or summary of the page. */
  content: string;
  /** Publication date as the provider gives it (ISO 8601 when it can be parsed). */
  date?: string;
}

export interface SearchProvider {
  /** `searxng` or `brave`. */
  readonly name: string;
  /** At most `count` results; throws on provider failure (the caller answers without search). */
  search(query: string, opts: { count: number; signal?: AbortSignal }): Promise<SearchResult[]>;
}

export interface ScrapedPage {
  url: string;
  title: string;
  /** Readable text of the article (not HTML). */
  content: string;
}
