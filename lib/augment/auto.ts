// `enable_web_search: "auto"`: whether a user message should be answered with a web search. A transparent keyword
// heuristic, not a model call, so the decision is instant, free and predictable. In order:
//
// 1. No search for messages with fewer than 2 words or 6 characters ("hi", "news?"), for messages that carry a URL
//    (the URL is the source: web scraping handles it), and for pure greetings and small talk ("hey, how are you?").
// 2. No search for tasks that work on what the user gave or asked to be made, whatever words they contain:
//    creative writing (write a poem/story/song…, imagine, pretend), coding (code blocks, "write a function",
//    debug, refactor, regex, "write/implement/fix … in <language>"), maths (solve, calculate, arithmetic
//    like "12 * 7"), and translating, summarising, rewriting or proofreading a text included in the message.
// 3. Search when the message asks about recent or changing facts: today, tonight, yesterday, latest, recent, news,
//    current(ly), right now, this/last week/month/year, upcoming, a year from 2024 on, price, cost of, stock, shares,
//    exchange rate, weather, forecast, score, standings, who won, election, release(d), launch(ed), CEO, president,
//    "who is/was", "what happened", "is … still", "still alive/open/available", or explicitly asks for it
//    ("search", "look up", "google", "on the web/internet").
// 4. Search for a lookup of a named entity: "tell me about X", "what is X", "who/where is X", "what does X do"
//    where X is capitalised like a name ("What is Lagoon AI?" searches, "What is a lagoon?" does not).
// 5. Otherwise no search.

const GREETING =
  /^(?:hi|hello|hey|heya|hiya|yo|howdy|greetings|good (?:morning|afternoon|evening|night|day)|thanks|thank you|thx|ok|okay|bye|goodbye|cheers)\b[\s,!.?]*/;
const SMALL_TALK =
  /^(?:how are (?:you|things)|how'?s it going|how is it going|what'?s up|how do you do|how have you been|nice to meet you|who are you|what can you do|there)\b[\s\w,!.?']*$/;

const CREATIVE =
  /\b(?:write|compose|create|draft|make up|come up with|generate)\b[^.?!]*\b(?:poem|poems|story|stories|song|songs|lyrics|haiku|limerick|sonnet|essay|novel|fable|joke|jokes|rap|verse|script|screenplay|dialogue|fan ?fiction|tale)\b|\b(?:imagine|pretend|role-?play|once upon a time)\b/;
const CODING =
  /```|\b(?:debug|refactor|compile|compiler|stack ?trace|segfault|regex|regular expression|unit tests?|syntax error|null pointer|sql query|bash script|shell script|function that|a function|this code|my code|the code|code snippet|algorithm|big-?o|leetcode)\b/;
const CODE_IN_LANGUAGE =
  /\b(?:write|implement|code|program|fix|convert|port)\b[^.?!]*\b(?:python|javascript|typescript|java|rust|golang|ruby|php|sql|bash|kotlin|swift|c\+\+|c#)(?![\w+#])/;
const MATH =
  /\b(?:solve|calculate|compute|simplify|derivative|integral|integrate|differentiate|equation|prove|proof|factori[sz]e|square root|modulo)\b|\b\d+(?:\.\d+)?\s*[+*×÷^]\s*\d|\b\d+\s*%\s*of\s*\d/;
const TEXT_TASK =
  /\b(?:translate|translation|summari[sz]e|summary of|tl;?dr|rewrite|rephrase|paraphrase|proofread|correct the grammar|fix the grammar|improve this|shorten this)\b/;

const RECENT = new RegExp(
  [
    String.raw`\b(?:today|today'?s|tonight|yesterday|tomorrow|latest|newest|recent|recently|news|headlines?|breaking|currently|current|right now|nowadays|upcoming|as of|so far this)\b`,
    String.raw`\b(?:this|last|next) (?:week|weekend|month|year|season|quarter)\b`,
    String.raw`\b(?:prices?|cost of|stocks?|shares|share price|market cap|exchange rate|bitcoin|btc|crypto|weather|forecast|temperature in|scores?|standings|who won|winners?|elections?|polls?|released?|release date|launch(?:ed)?|ceo|president|prime minister|still (?:alive|open|available|running|working|exist))\b`,
    String.raw`\b(?:who is|who's|who was|who are|what happened|what's happening|is [^.?!]{1,60} still)\b`,
    String.raw`\b(?:search|look up|lookup|google|on the (?:web|internet))\b`,
  ].join('|'),
);
const YEAR = /\b(20[2-9]\d)\b/g;
const ENTITY_LOOKUP = /\b(?:tell me about|what is|what's|what are|who is|where is|what does|info on|information about)\s+(?:the\s+|a\s+|an\s+)?([A-Z][\w.&-]*)/;
const URL = /\bhttps?:\/\/\S/i;

export function needsSearch(text: string): boolean {
  const original = text.trim();
  const lower = original.toLowerCase();
  const words = lower.split(/\s+/).filter(Boolean).length;
  if (words < 2 || original.length < 6) return false;
  if (URL.test(original)) return false;

  const afterGreeting = lower.replace(GREETING, '');
  if (afterGreeting === '' || SMALL_TALK.test(afterGreeting)) return false;

  if (CREATIVE.test(lower) || CODING.test(lower) || CODE_IN_LANGUAGE.test(lower) || MATH.test(lower)) return false;
  if (TEXT_TASK.test(lower) && carriesText(original)) return false;

  if (RECENT.test(lower)) return true;
  for (const m of lower.matchAll(YEAR)) if (Number(m[1]) >= 2024) return true;
  // Sentence-initial capitals say nothing about names: "What is a lagoon?" must not look like a lookup of "What".
  return ENTITY_LOOKUP.test(original.replace(/(^|[.!?]\s+)(\p{Lu})/gu, (_, before: string, c: string) => before + c.toLowerCase()));
}

/** Whether a translate/summarise request includes the text to work on (rather than asking about the world). */
function carriesText(text: string): boolean {
  return text.includes('\n') || text.length > 300 || /:\s*\S.{20,}/s.test(text) || /["“'«][^"”'»]{20,}["”'»]/.test(text);
}
