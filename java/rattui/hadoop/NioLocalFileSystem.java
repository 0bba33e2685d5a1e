package rattui.hadoop;

import static java.nio.file.attribute.PosixFilePermission.GROUP_EXECUTE;
import static java.nio.file.attribute.PosixFilePermission.GROUP_READ;
import static java.nio.file.attribute.PosixFilePermission.GROUP_WRITE;
import static java.nio.file.attribute.PosixFilePermission.OTHERS_EXECUTE;
import static java.nio.file.attribute.PosixFilePermission.OTHERS_READ;
import static java.nio.file.attribute.PosixFilePermission.OTHERS_WRITE;
import static java.nio.file.attribute.PosixFilePermission.OWNER_EXECUTE;
import static java.nio.file.attribute.PosixFilePermission.OWNER_READ;
import static java.nio.file.attribute.PosixFilePermission.OWNER_WRITE;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * Hadoop's local file system, setting permissions with a system call where Hadoop starts a process.
 *
 * <p>Without Hadoop's native library (PySpark ships none), RawLocalFileSystem runs {@code chmod} in a
 * child process for every file and folder it creates: 4 to 6 ms each, and a warm run of a small
 * pipeline creates eleven (data, manifests, metadata, version hints), a bare write six. This one asks
 * java.nio, as the native library would ask the kernel. What java.nio cannot set (sticky and set-id
 * bits, a file system without POSIX permissions) still goes Hadoop's way.
 */
public class NioLocalFileSystem extends LocalFileSystem {
  public NioLocalFileSystem() {
    super(new Raw());
  }

  /** The raw file system under the checksums; only its setPermission differs from Hadoop's. */
  public static class Raw extends RawLocalFileSystem {
    /** The permission for each bit of a mode, lowest first. */
    private static final PosixFilePermission[] BY_BIT = {
      OTHERS_EXECUTE, OTHERS_WRITE, OTHERS_READ,
      GROUP_EXECUTE, GROUP_WRITE, GROUP_READ,
      OWNER_EXECUTE, OWNER_WRITE, OWNER_READ
    };

    @Override
    public void setPermission(Path path, FsPermission permission) throws IOException {
      short mode = permission.toShort();
      if ((mode & ~0777) != 0) {
        super.setPermission(path, permission);
        return;
      }
      Set<PosixFilePermission> granted = EnumSet.noneOf(PosixFilePermission.class);
      for (int bit = 0; bit < BY_BIT.length; bit++) {
        if ((mode & (1 << bit)) != 0) {
          granted.add(BY_BIT[bit]);
        }
      }
      try {
        Files.setPosixFilePermissions(pathToFile(path).toPath(), granted);
      } catch (UnsupportedOperationException notPosix) {
        super.setPermission(path, permission);
      }
    }
  }
}
