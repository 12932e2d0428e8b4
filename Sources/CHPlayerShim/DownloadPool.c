#include "DownloadPool.h"
#include <libavutil/hwcontext.h>
#include <libavutil/imgutils.h>
#include <libavutil/mem.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>

// Rows as FFmpeg's own frame buffers align them (SIMD loads), planes of whole 32-row blocks as
// av_frame_get_buffer's, and a tail for readers that overrun.
enum { ALIGNMENT = 64, ROWS = 32, PADDING = 64 };

/// The CUDA driver calls for page-locked memory. libcuda is already loaded when a CUDA device
/// exists (libavutil opened it), so it is looked up, never loaded, here.
static struct {
    int (*push)(void *context);
    int (*pop)(void **context);
    int (*alloc)(void **pointer, size_t bytes, unsigned int flags);
    int (*free)(void *pointer);
} cuda;
static pthread_once_t cuda_once = PTHREAD_ONCE_INIT;

static void cuda_load(void) {
    void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!library) return;
    cuda.push = (int (*)(void *))dlsym(library, "cuCtxPushCurrent_v2");
    cuda.pop = (int (*)(void **))dlsym(library, "cuCtxPopCurrent_v2");
    cuda.alloc = (int (*)(void **, size_t, unsigned int))dlsym(library, "cuMemHostAlloc");
    cuda.free = (int (*)(void *))dlsym(library, "cuMemFreeHost");
    if (!cuda.push || !cuda.pop || !cuda.alloc || !cuda.free) cuda.alloc = NULL;
}

/// One size of buffers: its AVBufferPool's opaque, freed with the pool's last buffer (which may
/// outlive the HPDownloadPool, in a picture still queued).
typedef struct {
    AVBufferRef *device;  // keeps the CUDA context alive while its buffers are
    void *context;        // the CUcontext, or NULL: plain memory
    atomic_int pinned;
} Generation;

struct HPDownloadPool {
    AVBufferRef *device;
    void *context;
    AVBufferPool *buffers;
    Generation *generation;
    enum AVPixelFormat format;
    int width, height;
    // The download format asked of the device once per frames context (the asking allocates).
    const void *asked_frames;
    enum AVPixelFormat asked_surface_format, download_format;
};

static void pinned_free(void *opaque, uint8_t *data) {
    Generation *generation = opaque;
    void *popped;
    int pushed = cuda.push(generation->context) == 0;
    cuda.free(data);
    if (pushed) cuda.pop(&popped);
}

static AVBufferRef *generation_alloc(void *opaque, size_t size) {
    Generation *generation = opaque;
    if (generation->context && cuda.alloc) {
        void *data = NULL, *popped;
        if (cuda.push(generation->context) == 0) {
            if (cuda.alloc(&data, size, 0) != 0) data = NULL;
            cuda.pop(&popped);
        }
        if (data) {
            AVBufferRef *buffer = av_buffer_create(data, size, pinned_free, generation, 0);
            if (buffer) {
                atomic_store(&generation->pinned, 1);
                return buffer;
            }
            pinned_free(generation, data);
        }
    }
    return av_buffer_alloc(size);
}

static void generation_free(void *opaque) {
    Generation *generation = opaque;
    av_buffer_unref(&generation->device);
    av_free(generation);
}

HPDownloadPool *hp_download_pool_new(AVBufferRef *device) {
    HPDownloadPool *pool = av_mallocz(sizeof *pool);
    if (!pool) return NULL;
    pool->device = av_buffer_ref(device);
    if (!pool->device) {
        av_free(pool);
        return NULL;
    }
    AVHWDeviceContext *context = (AVHWDeviceContext *)device->data;
    if (context->type == AV_HWDEVICE_TYPE_CUDA) {
        pthread_once(&cuda_once, cuda_load);
        // AVCUDADeviceContext begins with its CUcontext; its header needs CUDA's own.
        pool->context = *(void **)context->hwctx;
    }
    pool->format = AV_PIX_FMT_NONE;
    pool->asked_surface_format = AV_PIX_FMT_NONE;
    return pool;
}

/// Makes the pool's buffers fit pictures of this format and size.
static int fit(HPDownloadPool *pool, enum AVPixelFormat format, int width, int height) {
    if (pool->buffers && format == pool->format && width == pool->width && height == pool->height) return 0;
    av_buffer_pool_uninit(&pool->buffers);
    pool->generation = NULL;
    int size = av_image_get_buffer_size(format, width, height, ALIGNMENT);
    if (size < 0) return size;
    Generation *generation = av_mallocz(sizeof *generation);
    if (!generation) return AVERROR(ENOMEM);
    generation->device = av_buffer_ref(pool->device);
    generation->context = pool->context;
    pool->buffers = av_buffer_pool_init2((size_t)size + PADDING, generation, generation_alloc, generation_free);
    if (!generation->device || !pool->buffers) {
        if (pool->buffers) av_buffer_pool_uninit(&pool->buffers);
        else generation_free(generation);
        return AVERROR(ENOMEM);
    }
    pool->generation = generation;
    pool->format = format;
    pool->width = width;
    pool->height = height;
    return 0;
}

/// The format a picture comes down in: the first the device offers, as av_hwframe_transfer_data
/// picks (NV12 on VDPAU, whose surfaces say YUV420P; the surface's own format elsewhere).
static enum AVPixelFormat download_format(HPDownloadPool *pool, const AVFrame *source) {
    const AVHWFramesContext *frames = (const AVHWFramesContext *)source->hw_frames_ctx->data;
    if (frames == pool->asked_frames && frames->sw_format == pool->asked_surface_format) return pool->download_format;
    enum AVPixelFormat *formats = NULL, format = AV_PIX_FMT_NONE;
    if (av_hwframe_transfer_get_formats(source->hw_frames_ctx, AV_HWFRAME_TRANSFER_DIRECTION_FROM, &formats, 0) >= 0)
        format = formats[0];
    av_free(formats);
    pool->asked_frames = frames;
    pool->asked_surface_format = frames->sw_format;
    pool->download_format = format;
    return format;
}

int hp_download_pool_transfer(HPDownloadPool *pool, AVFrame *destination, const AVFrame *source) {
    av_frame_unref(destination);
    if (!source->hw_frames_ctx) return AVERROR(EINVAL);
    const AVHWFramesContext *frames = (const AVHWFramesContext *)source->hw_frames_ctx->data;
    enum AVPixelFormat format = download_format(pool, source);
    if (format == AV_PIX_FMT_NONE) return AVERROR(ENOSYS);
    // The surface's size (the coded one): the picture may be cropped inside it.
    int rows = FFALIGN(frames->height, ROWS);
    int result = fit(pool, format, frames->width, rows);
    if (result < 0) return result;
    destination->buf[0] = av_buffer_pool_get(pool->buffers);
    if (!destination->buf[0]) return AVERROR(ENOMEM);
    result = av_image_fill_arrays(destination->data, destination->linesize, destination->buf[0]->data,
                                  format, frames->width, rows, ALIGNMENT);
    destination->format = format;
    destination->width = source->width;
    destination->height = source->height;
    if (result >= 0) result = av_hwframe_transfer_data(destination, source, 0);
    if (result >= 0) result = av_frame_copy_props(destination, source);
    if (result < 0) av_frame_unref(destination);
    return result < 0 ? result : 0;
}

int hp_download_pool_is_pinned(const HPDownloadPool *pool) {
    return pool->generation && atomic_load(&pool->generation->pinned);
}

void hp_download_pool_free(HPDownloadPool **pool) {
    if (!*pool) return;
    av_buffer_pool_uninit(&(*pool)->buffers);
    av_buffer_unref(&(*pool)->device);
    av_freep(pool);
}
