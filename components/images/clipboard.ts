// Copying an image: clipboards take PNG (browsers refuse WebP and JPEG there), so the file is drawn onto a canvas in
// the browser and copied as PNG; nothing goes back to the server.
export async function copyImage(url: string): Promise<void> {
  if (typeof ClipboardItem === 'undefined' || !navigator.clipboard?.write) throw new Error('This browser cannot copy images');
  const png = (async () => {
    const res = await fetch(url, { credentials: 'same-origin' });
    if (!res.ok) throw new Error(`The image could not be read (HTTP ${res.status})`);
    const blob = await res.blob();
    if (blob.type === 'image/png') return blob;
    const bitmap = await createImageBitmap(blob);
    const canvas = document.createElement('canvas');
    canvas.width = bitmap.width;
    canvas.height = bitmap.height;
    canvas.getContext('2d')?.drawImage(bitmap, 0, 0);
    bitmap.close();
    return new Promise<Blob>((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('The image could not be converted'))), 'image/png'));
  })();
  // The promise itself goes to the clipboard, so Safari keeps the user's gesture while the image loads.
  await navigator.clipboard.write([new ClipboardItem({ 'image/png': png })]);
}
