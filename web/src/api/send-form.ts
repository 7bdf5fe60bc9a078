// XMLHttpRequest is the one browser API that reports how much of a request body has been sent,
// which a progress bar for uploads needs; ApiClient.upload is its only caller.

export interface UploadOptions {
  /** Called as the body goes out, with the share sent so far (0 to 1). */
  onProgress?: (fraction: number) => void;
  signal?: AbortSignal;
}

export interface FormAnswer {
  status: number;
  statusText: string;
  text: string;
}

/** The connection broke (or the request was aborted) before any answer came. */
export class NetworkError extends Error {
  constructor(message = 'The connection failed') {
    super(message);
    this.name = 'NetworkError';
  }
}

export function sendForm(
  url: string,
  form: FormData,
  token: string | null,
  options: UploadOptions,
): Promise<FormAnswer> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url);
    xhr.setRequestHeader('accept', 'application/json');
    if (token) xhr.setRequestHeader('authorization', `Bearer ${token}`);
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) options.onProgress?.(event.loaded / event.total);
    };
    xhr.onload = () => resolve({ status: xhr.status, statusText: xhr.statusText, text: xhr.responseText });
    xhr.onerror = () => reject(new NetworkError());
    xhr.onabort = () => reject(new NetworkError('The upload was cancelled'));
    if (options.signal) {
      if (options.signal.aborted) return reject(new NetworkError('The upload was cancelled'));
      options.signal.addEventListener('abort', () => xhr.abort(), { once: true });
    }
    xhr.send(form);
  });
}
