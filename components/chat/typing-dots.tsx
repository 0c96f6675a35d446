// Three bouncing dots while an answer has started but no text has arrived yet (still when motion is reduced).
export function TypingDots() {
  return (
    <div className="flex h-7 items-center gap-1" aria-hidden="true">
      {[0, 150, 300].map((d) => (
        <span key={d} className="h-2 w-2 animate-bounce rounded-full bg-muted-foreground/60 motion-reduce:animate-none" style={{ animationDelay: `${d}ms` }} />
      ))}
    </div>
  );
}
