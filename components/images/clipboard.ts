// Copying an image: clipboards take PNG (browsers refuse WebP and JPEG there), so the file is drawn onto a canvas in
// the browser and copied as PNG; nothing goes back to the server.
/** `words`: the failures in the user's language (the catalogue's images.cannotCopy, unreadable, notConverted). */
export async function copyImage(url: string, words: { cannotCopy: string; unreadable: (status: number) => string; notConverted: string }): Promise<void> {
  if (typeof ClipboardItem === 'undefined' || !navigator.clipboard?.write) throw new Error(words.cannotCopy);
  const png = (async () => {
    const res = await fetch(url, { credentials: 'same-origin' });
    if (!res.ok) throw new Error(words.unreadable(res.status));
    const blob = await res.blob();
    if (blob.type === 'image/png') return blob;
    const bitmap = await createImageBitmap(blob);
    const canvas = document.createElement('canvas');
    canvas.width = bitmap.width;
    canvas.height = bitmap.height;
    canvas.getContext('2d')?.drawImage(bitmap, 0, 0);
    bitmap.close();
    return new Promise<Blob>((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error(words.notConverted))), 'image/png'));
  })();
  // The promise itself goes to the clipboard, so Safari keeps the user's gesture while the image loads.
  await navigator.clipboard.write([new ClipboardItem({ 'image/png': png })]);
}
