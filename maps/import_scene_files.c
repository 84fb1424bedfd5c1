/*
 * import_scene_files.c - the files assimp reads for a scene: the scene
 * itself and the files it names (a glTF's buffers, an OBJ's .mtl), through
 * assimp's C file-system callbacks (assimp/cfileio.h).
 *
 * A scene is outside input: it may name any path, and assimp opens what it
 * names. A buffer naming a FIFO would hang the import, waiting for a
 * writer, and one naming ../x.bin or an absolute path would read a file
 * anywhere. So a file is opened only when it is a regular file and lies
 * in the scene's folder or below it (after symbolic links are resolved),
 * or is the scene itself; anything else is refused, and the import fails
 * naming the first file refused and why, even when assimp would have gone
 * on without it.
 */
#include "maps/import_scene_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <assimp/cfileio.h>
#include <assimp/cimport.h>

/* What the callbacks know of the import. */
typedef struct scene_files {
    const char *input;         /* the path the import was asked for */
    char *input_real;          /* its real path, or NULL */
    char folder[PATH_MAX + 1]; /* the real path of its folder, ending in '/' */
    char refused[768];         /* why the first file refused was, or "" */
} scene_files;

static FILE *file_of(struct aiFile *f)
{
    return (FILE *)(void *)f->UserData;
}

static size_t file_read(struct aiFile *f, char *buf, size_t size, size_t count)
{
    return size && count ? fread(buf, size, count, file_of(f)) : 0;
}

static size_t file_write(struct aiFile *f, const char *buf, size_t size, size_t count)
{
    (void)f, (void)buf, (void)size, (void)count;
    return 0; /* an import writes nothing */
}

static size_t file_tell(struct aiFile *f)
{
    off_t at = ftello(file_of(f));
    return at < 0 ? 0 : (size_t)at;
}

static size_t file_size(struct aiFile *f)
{
    struct stat st;
    return fstat(fileno(file_of(f)), &st) == 0 ? (size_t)st.st_size : 0;
}

static enum aiReturn file_seek(struct aiFile *f, size_t offset, enum aiOrigin origin)
{
    int whence = origin == aiOrigin_SET ? SEEK_SET : origin == aiOrigin_CUR ? SEEK_CUR : SEEK_END;
    /* As assimp's own streams do: an offset past the signed range is a
     * step back from CUR or END. */
    return fseeko(file_of(f), (off_t)offset, whence) == 0 ? aiReturn_SUCCESS : aiReturn_FAILURE;
}

static void file_flush(struct aiFile *f)
{
    (void)f;
}

#define NOT_REGULAR "not a regular file (a FIFO, a device or a directory); only regular files are read"

/* Keeps the first refusal: the scene itself, or a file it names. */
static void refuse(scene_files *sf, const char *path, const char *why)
{
    if (sf->refused[0])
        return;
    if (strcmp(path, sf->input) == 0)
        snprintf(sf->refused, sizeof sf->refused, "%s", why);
    else
        snprintf(sf->refused, sizeof sf->refused, "the scene names '%.300s', %s", path, why);
}

/* Is what fd opened in the scene's folder (or the scene)? Asked of the
 * open file, where the kernel found it (/proc/self/fd), not of the path:
 * the path was resolved before the open, and a link swapped in between
 * would be followed by it. */
static int opened_inside(const scene_files *sf, int fd)
{
    char link[64], at[PATH_MAX + 1];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, at, sizeof at - 1);
    if (n <= 0 || (size_t)n >= sizeof at - 1)
        return 0;
    at[n] = '\0';
    return strncmp(at, sf->folder, strlen(sf->folder)) == 0 || (sf->input_real && strcmp(at, sf->input_real) == 0);
}

static struct aiFile *files_open(struct aiFileIO *io, const char *path, const char *mode)
{
    scene_files *sf = (scene_files *)(void *)io->UserData;
    if (!path || !mode || strpbrk(mode, "wa+"))
        return NULL;
    char *real = realpath(path, NULL);
    if (!real)
        return NULL; /* not there: assimp says what it could not open */
    size_t flen = strlen(sf->folder);
    int inside = strncmp(real, sf->folder, flen) == 0 || (sf->input_real && strcmp(real, sf->input_real) == 0);
    struct stat st;
    int fd = -1;
    FILE *fp = NULL;
    char why[PATH_MAX + 100];
    snprintf(why, sizeof why, "which lies outside the scene's folder %.300s; only files in it or below it are read",
             sf->folder);
    if (!inside) {
        refuse(sf, path, why);
    } else if (stat(real, &st) != 0 || !S_ISREG(st.st_mode)) {
        /* Not opened at all: a FIFO would wait for a writer, a device
         * may never end. */
        refuse(sf, path, strcmp(path, sf->input) == 0 ? NOT_REGULAR : "which is " NOT_REGULAR);
    } else if ((fd = open(real, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) < 0) {
        /* unreadable: assimp says what it could not open */
    } else if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        /* swapped for something else since the stat */
        refuse(sf, path, strcmp(path, sf->input) == 0 ? NOT_REGULAR : "which is " NOT_REGULAR);
    } else if (!opened_inside(sf, fd)) {
        /* swapped for a link out of the folder since realpath */
        refuse(sf, path, why);
    } else if (fcntl(fd, F_SETFL, 0) == 0) {
        fp = fdopen(fd, "rb");
    }
    free(real);
    struct aiFile *f = fp ? calloc(1, sizeof *f) : NULL;
    if (!f) {
        if (fp)
            fclose(fp);
        else if (fd >= 0)
            close(fd);
        return NULL;
    }
    f->ReadProc = file_read;
    f->WriteProc = file_write;
    f->TellProc = file_tell;
    f->FileSizeProc = file_size;
    f->SeekProc = file_seek;
    f->FlushProc = file_flush;
    f->UserData = (aiUserData)(void *)fp;
    return f;
}

static void files_close(struct aiFileIO *io, struct aiFile *f)
{
    (void)io;
    if (!f)
        return;
    fclose(file_of(f));
    free(f);
}

const struct aiScene *sweep__scene_read(importer *im, const char *path, unsigned flags)
{
    scene_files sf;
    memset(&sf, 0, sizeof sf);
    sf.input = path;
    sf.input_real = realpath(path, NULL);
    char *copy = strdup(path);
    if (!copy) {
        free(sf.input_real);
        sweep__scene_fail(im, SWEEP_E_NOMEM, "out of memory");
        return NULL;
    }
    char *dir = realpath(dirname(copy), NULL);
    int dir_errno = errno;
    free(copy);
    if (!dir || strlen(dir) + 2 > sizeof sf.folder) {
        free(dir);
        free(sf.input_real);
        sweep__scene_fail(im, SWEEP_E_GEOMETRY, "cannot import: its folder: %s",
                          dir ? "path too long" : strerror(dir_errno));
        return NULL;
    }
    snprintf(sf.folder, sizeof sf.folder, "%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/");
    free(dir);

    /* assimp keeps a wrapper of io with the scene, but the steps run on it
     * later (aiApplyPostProcessing) read no files. */
    struct aiFileIO io = {files_open, files_close, (aiUserData)(void *)&sf};
    const struct aiScene *scene = aiImportFileEx(path, flags, &io);
    free(sf.input_real);
    if (sf.refused[0]) {
        if (scene)
            aiReleaseImport(scene);
        sweep__scene_fail(im, SWEEP_E_GEOMETRY, "cannot import: %s", sf.refused);
        return NULL;
    }
    if (!scene) {
        const char *why = aiGetErrorString();
        sweep__scene_fail(im, SWEEP_E_GEOMETRY, "cannot import: %s",
                          why && *why ? why : "unknown or unsupported format");
    }
    return scene;
}
