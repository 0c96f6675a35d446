// Balances as people read them: dollars with cents (more digits for fractions of a cent), DIEM to four places.
export function formatUsd(v: number): string {
  const small = Math.abs(v) > 0 && Math.abs(v) < 1;
  return new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: small ? 4 : 2 }).format(v);
}

export function formatDiem(v: number): string {
  return new Intl.NumberFormat('en-US', { minimumFractionDigits: 0, maximumFractionDigits: 4 }).format(v);
}
