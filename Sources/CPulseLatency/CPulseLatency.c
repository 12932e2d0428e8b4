#include "CPulseLatency.h"

#include <pulse/pulseaudio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pa_threaded_mainloop *mainloop;
static pa_context *context;
static pa_time_event *timer;
static _Atomic int64_t latest = -1;

static void ask(pa_mainloop_api *api, pa_time_event *event, const struct timeval *tv, void *userdata);

static void on_sink_input(pa_context *c, const pa_sink_input_info *info, int eol, void *userdata)
{
    (void)c;
    (void)userdata;
    if (eol || info == NULL)
        return;
    const char *pid = pa_proplist_gets(info->proplist, PA_PROP_APPLICATION_PROCESS_ID);
    if (pid != NULL && atol(pid) == (long)getpid() && !info->corked)
        atomic_store(&latest, (int64_t)(info->buffer_usec + info->sink_usec));
}

static void ask(pa_mainloop_api *api, pa_time_event *event, const struct timeval *tv, void *userdata)
{
    (void)tv;
    (void)userdata;
    if (pa_context_get_state(context) == PA_CONTEXT_READY) {
        pa_operation *operation = pa_context_get_sink_input_info_list(context, on_sink_input, NULL);
        if (operation != NULL)
            pa_operation_unref(operation);
    }
    struct timeval next;
    pa_gettimeofday(&next);
    pa_timeval_add(&next, 200 * PA_USEC_PER_MSEC);
    api->time_restart(event, &next);
}

static void on_state(pa_context *c, void *userdata)
{
    (void)userdata;
    switch (pa_context_get_state(c)) {
    case PA_CONTEXT_READY:
    case PA_CONTEXT_FAILED:
    case PA_CONTEXT_TERMINATED:
        pa_threaded_mainloop_signal(mainloop, 0);
        break;
    default:
        break;
    }
}

int hp_pulse_latency_start(void)
{
    if (mainloop != NULL)
        return 1;
    mainloop = pa_threaded_mainloop_new();
    if (mainloop == NULL)
        return 0;
    pa_mainloop_api *api = pa_threaded_mainloop_get_api(mainloop);
    context = pa_context_new(api, "hplayer latency");
    if (context == NULL) {
        pa_threaded_mainloop_free(mainloop);
        mainloop = NULL;
        return 0;
    }
    pa_context_set_state_callback(context, on_state, NULL);
    pa_threaded_mainloop_lock(mainloop);
    int ready = 0;
    if (pa_context_connect(context, NULL, PA_CONTEXT_NOAUTOSPAWN, NULL) >= 0 && pa_threaded_mainloop_start(mainloop) >= 0) {
        for (;;) {
            pa_context_state_t state = pa_context_get_state(context);
            if (state == PA_CONTEXT_READY) {
                ready = 1;
                break;
            }
            if (!PA_CONTEXT_IS_GOOD(state))
                break;
            pa_threaded_mainloop_wait(mainloop);
        }
    }
    if (ready) {
        struct timeval now;
        pa_gettimeofday(&now);
        timer = api->time_new(api, &now, ask, NULL);
    }
    pa_threaded_mainloop_unlock(mainloop);
    if (!ready)
        hp_pulse_latency_stop();
    return ready;
}

int64_t hp_pulse_latency_usec(void)
{
    return atomic_load(&latest);
}

void hp_pulse_latency_stop(void)
{
    if (mainloop == NULL)
        return;
    pa_threaded_mainloop_lock(mainloop);
    if (timer != NULL) {
        pa_threaded_mainloop_get_api(mainloop)->time_free(timer);
        timer = NULL;
    }
    if (context != NULL)
        pa_context_disconnect(context);
    pa_threaded_mainloop_unlock(mainloop);
    pa_threaded_mainloop_stop(mainloop);
    if (context != NULL) {
        pa_context_unref(context);
        context = NULL;
    }
    pa_threaded_mainloop_free(mainloop);
    mainloop = NULL;
    atomic_store(&latest, -1);
}
