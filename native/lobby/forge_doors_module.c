/*
 * forge_doors_module.c - the forge_doors.dll C ABI over forge_doors_runtime.h.
 *
 * The Lobby adapter loads the DLL, checks forge_doors_api_version() against
 * the FD_API_VERSION it was built with, allocates forge_doors_runtime_size()
 * bytes (pointer-aligned, at least 8) for one fd_runtime, and calls the
 * functions below on its authoritative simulation thread. Each is a direct
 * call into the runtime; see the header for what they do. Strings returned
 * are static and never freed.
 *
 * Built by `make dll` with x86_64-w64-mingw32-gcc.
 */
#define FORGE_DOORS_IMPLEMENTATION
#include "forge_doors_runtime.h"

#if defined(_WIN32)
#define FD_EXPORT __declspec(dllexport)
#else
#define FD_EXPORT __attribute__((visibility("default")))
#endif

FD_EXPORT uint32_t forge_doors_api_version(void);
FD_EXPORT const char *forge_doors_module_version(void);
FD_EXPORT size_t forge_doors_runtime_size(void);
FD_EXPORT const char *forge_doors_status_text(fd_status status);
FD_EXPORT void forge_doors_init(fd_runtime *rt);
FD_EXPORT fd_status forge_doors_load_inventory(fd_runtime *rt, const char *doors, size_t doors_len,
                                               const char *installed, size_t installed_len);
FD_EXPORT void forge_doors_report_build(fd_runtime *rt, const char *build_id);
FD_EXPORT void forge_doors_report_forge(fd_runtime *rt, int loaded, uint32_t api_marker);
FD_EXPORT fd_status forge_doors_gate(const fd_runtime *rt);
FD_EXPORT void forge_doors_begin_world(fd_runtime *rt, uint64_t world_instance, fd_role role);
FD_EXPORT void forge_doors_become_host(fd_runtime *rt);
FD_EXPORT fd_physics forge_doors_seed_physics(const fd_runtime *rt, const char *tag, size_t tag_len,
                                              fd_placement_source source, fd_physics placement);
FD_EXPORT fd_body_class forge_doors_classify_body(fd_runtime *rt, uint32_t salted_tag,
                                                  fd_classify_fn classify, void *ctx);
FD_EXPORT void forge_doors_begin_scan(fd_runtime *rt);
FD_EXPORT fd_status forge_doors_observe_panel(fd_runtime *rt, const fd_panel_observation *obs,
                                              fd_observe_result *res);
FD_EXPORT fd_status forge_doors_step(fd_runtime *rt, uint64_t tick, double tick_seconds,
                                     const fd_obstacle *obstacles, size_t count);
FD_EXPORT int forge_doors_next_update(fd_runtime *rt, size_t *cursor, fd_pose_update *out);
FD_EXPORT size_t forge_doors_enter_monitor(fd_runtime *rt, const fd_obstacle *obstacles,
                                           size_t count);
FD_EXPORT fd_status forge_doors_request_edit(fd_runtime *rt, uint32_t handle, fd_edit edit,
                                             const fd_obstacle *obstacles, size_t count);
FD_EXPORT void forge_doors_finish_edit(fd_runtime *rt, uint32_t handle);
FD_EXPORT fd_status forge_doors_save_begin(const fd_runtime *rt);
FD_EXPORT fd_status forge_doors_save_project(const fd_runtime *rt, uint32_t handle, uint32_t entry,
                                             fd_pose *pose);
FD_EXPORT const fd_panel *forge_doors_find_panel(const fd_runtime *rt, uint32_t handle);

uint32_t forge_doors_api_version(void) { return FD_API_VERSION; }
const char *forge_doors_module_version(void) { return FD_MODULE_VERSION; }
size_t forge_doors_runtime_size(void) { return sizeof(fd_runtime); }
const char *forge_doors_status_text(fd_status status) { return fd_status_text(status); }
void forge_doors_init(fd_runtime *rt) { fd_runtime_init(rt); }

fd_status forge_doors_load_inventory(fd_runtime *rt, const char *doors, size_t doors_len,
                                     const char *installed, size_t installed_len)
{
    return fd_runtime_load_inventory(rt, doors, doors_len, installed, installed_len);
}

void forge_doors_report_build(fd_runtime *rt, const char *build_id)
{
    fd_runtime_report_build(rt, build_id);
}

void forge_doors_report_forge(fd_runtime *rt, int loaded, uint32_t api_marker)
{
    fd_runtime_report_forge(rt, loaded, api_marker);
}

fd_status forge_doors_gate(const fd_runtime *rt) { return fd_runtime_gate(rt); }

void forge_doors_begin_world(fd_runtime *rt, uint64_t world_instance, fd_role role)
{
    fd_runtime_begin_world(rt, world_instance, role);
}

void forge_doors_become_host(fd_runtime *rt) { fd_runtime_become_host(rt); }

fd_physics forge_doors_seed_physics(const fd_runtime *rt, const char *tag, size_t tag_len,
                                    fd_placement_source source, fd_physics placement)
{
    return fd_runtime_seed_physics(rt, tag, tag_len, source, placement);
}

fd_body_class forge_doors_classify_body(fd_runtime *rt, uint32_t salted_tag,
                                        fd_classify_fn classify, void *ctx)
{
    return fd_runtime_classify_body(rt, salted_tag, classify, ctx);
}

void forge_doors_begin_scan(fd_runtime *rt) { fd_runtime_begin_scan(rt); }

fd_status forge_doors_observe_panel(fd_runtime *rt, const fd_panel_observation *obs,
                                    fd_observe_result *res)
{
    return fd_runtime_observe_panel(rt, obs, res);
}

fd_status forge_doors_step(fd_runtime *rt, uint64_t tick, double tick_seconds,
                           const fd_obstacle *obstacles, size_t count)
{
    return fd_runtime_step(rt, tick, tick_seconds, obstacles, count);
}

int forge_doors_next_update(fd_runtime *rt, size_t *cursor, fd_pose_update *out)
{
    return fd_runtime_next_update(rt, cursor, out);
}

size_t forge_doors_enter_monitor(fd_runtime *rt, const fd_obstacle *obstacles, size_t count)
{
    return fd_runtime_enter_monitor(rt, obstacles, count);
}

fd_status forge_doors_request_edit(fd_runtime *rt, uint32_t handle, fd_edit edit,
                                   const fd_obstacle *obstacles, size_t count)
{
    return fd_runtime_request_edit(rt, handle, edit, obstacles, count);
}

void forge_doors_finish_edit(fd_runtime *rt, uint32_t handle) { fd_runtime_finish_edit(rt, handle); }

fd_status forge_doors_save_begin(const fd_runtime *rt) { return fd_runtime_save_begin(rt); }

fd_status forge_doors_save_project(const fd_runtime *rt, uint32_t handle, uint32_t entry,
                                   fd_pose *pose)
{
    return fd_runtime_save_project(rt, handle, entry, pose);
}

const fd_panel *forge_doors_find_panel(const fd_runtime *rt, uint32_t handle)
{
    return fd_runtime_find_panel(rt, handle);
}
