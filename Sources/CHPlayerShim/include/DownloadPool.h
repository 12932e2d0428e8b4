#ifndef HP_DOWNLOAD_POOL_H
#define HP_DOWNLOAD_POOL_H

#include <libavutil/frame.h>
#include <libavutil/buffer.h>

/// Host buffers a hardware decoder downloads its pictures into: reused from picture to picture
/// (av_hwframe_transfer_data would allocate and fault in a new one each time) and, on a CUDA
/// device, page-locked, so the GPU copies by DMA instead of through the driver's staging buffers.
typedef struct HPDownloadPool HPDownloadPool;

/// A pool for pictures decoded on `device` (a hardware device context; a reference is kept).
HPDownloadPool *hp_download_pool_new(AVBufferRef *device);

/// Downloads `source` (a picture on the device) into a pooled buffer that `destination`
/// (unreferenced) then holds; its properties are copied. A negative AVERROR on failure.
int hp_download_pool_transfer(HPDownloadPool *pool, AVFrame *destination, const AVFrame *source);

/// Whether the pool's buffers are page-locked (a CUDA device whose driver gave pinned memory).
int hp_download_pool_is_pinned(const HPDownloadPool *pool);

/// Frees the pool; buffers still held by pictures stay valid until those are unreferenced.
void hp_download_pool_free(HPDownloadPool **pool);

#endif
